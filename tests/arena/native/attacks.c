/* System calls a compiled bot could make directly, one per name: `attacks NAME`.
 *
 * Each attack runs in a child process (fork, that is clone without namespace flags, which
 * the filter allows) so that a kill is seen from outside it. The parent prints one line:
 *   NAME: ok            the call succeeded
 *   NAME: EPERM         it failed with that errno (any errno name)
 *   NAME: killed SYS    the child died of that signal (SIGSYS: the seccomp filter)
 * Run only inside the sandbox (tests/bots/test_sandbox_native.py).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define X32_SYSCALL_BIT 0x40000000L

/* clone3's argument, as linux/sched.h has it (older headers lack it). */
struct clone3_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static long raw_socket(void) { return socket(AF_INET, SOCK_RAW, IPPROTO_ICMP); }
static long inet_socket(void) { return socket(AF_INET, SOCK_STREAM, 0); }
static long netlink_socket(void) { return socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE); }
static long unix_socketpair(void) {
    int fds[2];
    return socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
}
static long inet_socketpair(void) {
    int fds[2];
    return socketpair(AF_INET, SOCK_STREAM, 0, fds);
}

#if defined(__x86_64__)
/* socket(AF_INET, SOCK_STREAM, 0) through the i386 entry: number 359 in its table. */
static long int80_socket(void) {
    long result;
    __asm__ volatile("int $0x80"
                     : "=a"(result)
                     : "a"(359L), "b"((long)AF_INET), "c"((long)SOCK_STREAM), "d"(0L)
                     : "memory");
    if (result < 0 && result > -4096) {
        errno = -result;
        return -1;
    }
    return result;
}

/* socket through the x32 ABI: x86_64's number with bit 30 set. */
static long x32_socket(void) { return syscall(X32_SYSCALL_BIT | SYS_socket, AF_INET, SOCK_STREAM, 0); }
#endif

static long clone3_newuser(void) {
    struct clone3_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_NEWUSER;
    args.exit_signal = SIGCHLD;
    long pid = syscall(435 /* SYS_clone3 */, &args, sizeof args);
    if (pid == 0) _exit(0);
    return pid;
}

static long clone_newuser(void) {
    long pid = syscall(SYS_clone, (long)(CLONE_NEWUSER | SIGCHLD), 0L, 0L, 0L, 0L);
    if (pid == 0) _exit(0);
    return pid;
}

static long clone_newnet(void) {
    long pid = syscall(SYS_clone, (long)(CLONE_NEWNET | SIGCHLD), 0L, 0L, 0L, 0L);
    if (pid == 0) _exit(0);
    return pid;
}

static long plain_clone(void) {
    long pid = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid((pid_t)pid, NULL, 0);
    return pid;
}

static long unshare_newuser(void) { return unshare(CLONE_NEWUSER); }

static long io_uring(void) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    return syscall(SYS_io_uring_setup, 8, &params);
}

static long userfault(void) { return syscall(SYS_userfaultfd, 0); }

static long perf_event(void) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static long trace_me(void) { return ptrace(PTRACE_TRACEME, 0, NULL, NULL); }

static long keyring(void) {
    return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
}

static long bpf_map(void) {
    union bpf_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.map_type = BPF_MAP_TYPE_ARRAY;
    attr.key_size = 4;
    attr.value_size = 4;
    attr.max_entries = 1;
    return syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr);
}

static long host_figures(void) {
    char info[256];
    return syscall(SYS_sysinfo, info);
}

/* Drop the page cache of a file every sandbox reads: here, this program. */
static long drop_page_cache(void) {
#ifdef SYS_fadvise64
    int fd = open("/proc/self/exe", O_RDONLY);
    if (fd < 0) return -1;
    return syscall(SYS_fadvise64, fd, 0L, 0L, 4 /* POSIX_FADV_DONTNEED */);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static long own_pid(void) { return syscall(SYS_getpid); }

struct attack {
    const char *name;
    long (*run)(void);
};

static const struct attack ATTACKS[] = {
    {"getpid", own_pid},
    {"plain_clone", plain_clone},
#if defined(__x86_64__)
    {"int80_socket", int80_socket},
    {"x32_socket", x32_socket},
#endif
    {"clone3", clone3_newuser},
    {"clone_newuser", clone_newuser},
    {"clone_newnet", clone_newnet},
    {"unshare_newuser", unshare_newuser},
    {"io_uring_setup", io_uring},
    {"userfaultfd", userfault},
    {"perf_event_open", perf_event},
    {"ptrace", trace_me},
    {"raw_socket", raw_socket},
    {"inet_socket", inet_socket},
    {"netlink_socket", netlink_socket},
    {"unix_socketpair", unix_socketpair},
    {"inet_socketpair", inet_socketpair},
    {"keyctl", keyring},
    {"bpf", bpf_map},
    {"sysinfo", host_figures},
    {"fadvise64", drop_page_cache},
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: attacks NAME\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof ATTACKS / sizeof ATTACKS[0]; i++) {
        if (strcmp(ATTACKS[i].name, argv[1]) != 0) continue;
        fflush(stdout);
        pid_t child = fork();
        if (child < 0) {
            printf("%s: fork failed %s\n", argv[1], strerrorname_np(errno));
            return 1;
        }
        if (child == 0) {
            errno = 0;
            long result = ATTACKS[i].run();
            if (result < 0)
                printf("%s: %s\n", argv[1], strerrorname_np(errno));
            else
                printf("%s: ok\n", argv[1]);
            fflush(stdout);
            _exit(0);
        }
        int status;
        if (waitpid(child, &status, 0) < 0) {
            printf("%s: waitpid failed %s\n", argv[1], strerrorname_np(errno));
            return 1;
        }
        if (WIFSIGNALED(status)) printf("%s: killed %s\n", argv[1], sigabbrev_np(WTERMSIG(status)));
        return 0;
    }
    fprintf(stderr, "no attack %s\n", argv[1]);
    return 2;
}
