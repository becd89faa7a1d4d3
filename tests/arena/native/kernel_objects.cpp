// Kernel objects keyed by a shared inode, page or name, made by direct system calls.
//
// `kernel_objects probe CALL` makes one call and prints "CALL: ok" or "CALL: ENAME" (the
// errno's name); `kernel_objects bot locks|inotify STDLIB` is a Snag bot (protocol version 2,
// plays series, always the first legal action) that tells its twin its hand as
// tests/bots/hostile/lock_channel.py and inotify_channel.py do, through the files of the
// Python standard library at STDLIB, which every sandbox binds: read locks at one offset a
// card of STDLIB/this.py, or opens of STDLIB/lib2to3/fixes/fix_*.py watched by inotify. It
// writes the same JSON lines to stderr: {"hand": [...]}, then {"encoded": N} in seat 0 or
// {"decoded": [...]} in seat 1 (null and "error" where the sandbox refuses the call).
//
// Compiled by tests/bots/test_sandbox_kernel_objects.py with g++ and run from the bot's
// /bot folder by a one-line Python bot that executes it.

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

// Newer than some C libraries' headers; the numbers are the kernel's (asm-generic).
#ifndef MADV_COLD
#define MADV_COLD 20
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE 101
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x8
#endif

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

const std::string RANKS = "23456789TJQKA";
const std::string SUITS = "SHDC";
const char *FILE_OF_EVERY_SANDBOX = "/usr/lib/x86_64-linux-gnu/libc.so.6";

int card_index(const std::string &card) {
    return int(RANKS.find(card[0]) * 4 + SUITS.find(card[1]));
}

std::string card_name(int index) { return {RANKS[index / 4], SUITS[index % 4]}; }

std::string errno_name(int number) {
    const char *name = strerrorname_np(number);
    return name ? name : std::to_string(number);
}

// -1 with errno set, as the calls below answer: "ok" or the errno's name.
std::string outcome(long result) { return result < 0 ? errno_name(errno) : "ok"; }

// The probes. ----------------------------------------------------------------------------

int shared_file() { return open(FILE_OF_EVERY_SANDBOX, O_RDONLY); }

long record_lock(long command) {
    struct flock lock = {};
    lock.l_type = F_RDLCK;
    lock.l_whence = SEEK_SET;
    lock.l_len = 1;
    return syscall(SYS_fcntl, shared_file(), command, &lock);
}

long advise(int advice, bool file) {
    void *page = file ? mmap(nullptr, 4096, PROT_READ, MAP_SHARED, shared_file(), 0)
                      : mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return madvise(page, 4096, advice);
}

long advise_through_pidfd(int advice) {
    int pidfd = int(syscall(SYS_pidfd_open, getpid(), 0));
    if (pidfd < 0) return -1;
    struct iovec range = {mmap(nullptr, 4096, PROT_READ, MAP_SHARED, shared_file(), 0), 4096};
    return syscall(SYS_process_madvise, pidfd, &range, 1, advice, 0);
}

long vectored(long number, long flags) {
    static char buffer[64];
    struct iovec part = {buffer, sizeof buffer};
    int fd = number == SYS_pwritev2 ? open("/tmp/written", O_WRONLY | O_CREAT, 0600)
                                    : shared_file();
    return syscall(number, fd, &part, 1, 0, 0, flags);
}

long cache_stat() {
    // A file the bot may write: the kernel itself would answer for it.
    int fd = open("/tmp/cached", O_RDWR | O_CREAT, 0600);
    if (fd < 0 || write(fd, "x", 1) != 1) return -1;
    struct { unsigned long long offset, length; } range = {0, 0};
    unsigned long long counts[5] = {};
    return syscall(451, fd, &range, counts, 0);
}

// Every page of a shared file's mapping that mincore says is resident, "all" or how many.
std::string residency() {
    const long pages = 64;
    void *start = mmap(nullptr, pages * 4096, PROT_READ, MAP_SHARED, shared_file(), 0);
    unsigned char vector[pages];
    if (mincore(start, pages * 4096, vector) < 0) return errno_name(errno);
    long resident = std::count_if(vector, vector + pages, [](unsigned char v) { return v & 1; });
    return resident == pages ? "ok all" : "ok " + std::to_string(resident);
}

const std::map<std::string, std::function<long()>> PROBES = {
    {"flock_sh", [] { return long(flock(shared_file(), LOCK_SH)); }},
    {"flock_sh_nb", [] { return long(flock(shared_file(), LOCK_SH | LOCK_NB)); }},
    {"flock_ex", [] { return long(flock(shared_file(), LOCK_EX)); }},
    {"flock_ex_nb", [] { return long(flock(shared_file(), LOCK_EX | LOCK_NB)); }},
    {"fcntl_getlk", [] { return record_lock(F_GETLK); }},
    {"fcntl_setlk", [] { return record_lock(F_SETLK); }},
    {"fcntl_setlkw", [] { return record_lock(F_SETLKW); }},
    {"fcntl_ofd_getlk", [] { return record_lock(F_OFD_GETLK); }},
    {"fcntl_ofd_setlk", [] { return record_lock(F_OFD_SETLK); }},
    {"fcntl_ofd_setlkw", [] { return record_lock(F_OFD_SETLKW); }},
    // The kernel reads the command as an int: bits above it must not slip the call past.
    {"fcntl_setlk_high_bits", [] { return record_lock((1L << 32) | F_SETLK); }},
    {"fcntl_setlease", [] { return long(fcntl(shared_file(), F_SETLEASE, F_RDLCK)); }},
    {"fcntl_getlease", [] { return long(fcntl(shared_file(), F_GETLEASE)); }},
    {"fcntl_notify", [] { return long(fcntl(open("/usr", O_RDONLY), F_NOTIFY, DN_ACCESS)); }},
    {"fcntl_getfl", [] { return long(fcntl(shared_file(), F_GETFL)); }},
    {"fcntl_setfd", [] { return long(fcntl(shared_file(), F_SETFD, FD_CLOEXEC)); }},
    {"fcntl_dupfd", [] { return long(fcntl(shared_file(), F_DUPFD_CLOEXEC, 10)); }},
    {"inotify_init", [] { return syscall(SYS_inotify_init); }},
    {"inotify_init1", [] { return long(inotify_init1(IN_NONBLOCK)); }},
    {"inotify_add_watch", [] { return long(inotify_add_watch(-1, "/usr", IN_OPEN)); }},
    {"inotify_rm_watch", [] { return long(inotify_rm_watch(-1, 1)); }},
    {"fanotify_init", [] { return syscall(SYS_fanotify_init, 0, O_RDONLY); }},
    {"fanotify_mark", [] { return syscall(SYS_fanotify_mark, -1, 1, 0x20, AT_FDCWD, "/usr"); }},
    {"madvise_cold", [] { return advise(MADV_COLD, true); }},
    {"madvise_pageout", [] { return advise(MADV_PAGEOUT, true); }},
    {"madvise_mergeable", [] { return advise(MADV_MERGEABLE, false); }},
    {"madvise_hwpoison", [] { return advise(MADV_HWPOISON, false); }},
    {"madvise_soft_offline", [] { return advise(MADV_SOFT_OFFLINE, false); }},
    {"madvise_willneed", [] { return advise(MADV_WILLNEED, true); }},
    {"madvise_dontneed", [] { return advise(MADV_DONTNEED, false); }},
    {"madvise_free", [] { return advise(MADV_FREE, false); }},
    {"madvise_hugepage", [] { return advise(MADV_HUGEPAGE, false); }},
    {"process_madvise_cold", [] { return advise_through_pidfd(MADV_COLD); }},
    {"process_madvise_pageout", [] { return advise_through_pidfd(MADV_PAGEOUT); }},
    {"process_madvise_willneed", [] { return advise_through_pidfd(MADV_WILLNEED); }},
    {"prctl_memory_merge", [] { return long(prctl(67, 1, 0, 0, 0)); }},
    {"prctl_get_dumpable", [] { return long(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)); }},
    {"cachestat", [] { return cache_stat(); }},
    {"preadv2_nowait", [] { return vectored(SYS_preadv2, RWF_NOWAIT); }},
    {"pwritev2_nowait", [] { return vectored(SYS_pwritev2, RWF_NOWAIT); }},
    {"preadv2", [] { return vectored(SYS_preadv2, 0); }},
    {"pwritev2", [] { return vectored(SYS_pwritev2, 0); }},
    {"io_setup", [] {
         aio_context_t context = 0;
         return syscall(SYS_io_setup, 1, &context);
     }},
    {"io_submit", [] { return syscall(SYS_io_submit, 0, 0, nullptr); }},
};

// The bots. ------------------------------------------------------------------------------

std::vector<std::string> hand_of(const std::string &line) {
    std::vector<std::string> hand;
    size_t at = line.find("\"hand\":[");
    if (at == std::string::npos) return hand;
    size_t end = line.find(']', at);
    for (size_t quote = line.find('"', at + 8); quote < end; quote = line.find('"', quote + 4))
        hand.push_back(line.substr(quote + 1, 2));
    std::sort(hand.begin(), hand.end());
    return hand;
}

// The first of the legal actions, as listed: {"play":"7H"} (an action holds no braces).
std::string first_legal(const std::string &line) {
    size_t at = line.find('{', line.find("\"legal_actions\":["));
    return line.substr(at, line.find('}', at) - at + 1);
}

std::string json_cards(const std::vector<std::string> &cards) {
    std::string out = "[";
    for (const auto &card : cards) out += (out.size() > 1 ? ",\"" : "\"") + card + "\"";
    return out + "]";
}

void say(const std::string &line) {
    std::cerr << line << std::endl;  // endl flushes
}

struct Channel {
    virtual ~Channel() = default;
    virtual void encode(const std::vector<std::string> &hand) = 0;
    virtual void decode() = 0;
};

struct Locks : Channel {
    std::string path;
    std::vector<int> held;  // closing one would drop every lock of the process
    explicit Locks(const std::string &stdlib) : path(stdlib + "/this.py") {}

    static struct flock range(short type, int index) {
        struct flock lock = {};
        lock.l_type = type;
        lock.l_whence = SEEK_SET;
        lock.l_start = index;
        lock.l_len = 1;
        return lock;
    }

    void encode(const std::vector<std::string> &hand) override {
        int fd = open(path.c_str(), O_RDONLY);
        held.push_back(fd);
        for (const auto &card : hand) {
            struct flock lock = range(F_RDLCK, card_index(card));
            if (fcntl(fd, F_SETLK, &lock) < 0) {
                say("{\"encoded\": null, \"error\": \"F_SETLK " + errno_name(errno) + "\"}");
                return;
            }
        }
        say("{\"encoded\": " + std::to_string(hand.size()) + "}");
    }

    void decode() override {
        int fd = open(path.c_str(), O_RDONLY);
        held.push_back(fd);
        std::vector<std::string> cards;
        for (int index = 0; index < 52; index++) {
            struct flock lock = range(F_WRLCK, index);
            if (fcntl(fd, F_GETLK, &lock) < 0) {
                say("{\"decoded\": null, \"error\": \"F_GETLK " + errno_name(errno) + "\"}");
                return;
            }
            if (lock.l_type != F_UNLCK) cards.push_back(card_name(index));
        }
        std::sort(cards.begin(), cards.end());
        say("{\"decoded\": " + json_cards(cards) + "}");
    }
};

struct Watches : Channel {
    std::vector<std::string> files;
    std::map<int, int> card_of_watch;
    int fd = -1;
    std::string error;

    explicit Watches(const std::string &stdlib) {
        std::string folder = stdlib + "/lib2to3/fixes";
        if (DIR *listing = opendir(folder.c_str())) {
            while (struct dirent *entry = readdir(listing)) {
                std::string name = entry->d_name;
                if (name.rfind("fix_", 0) == 0) files.push_back(folder + "/" + name);
            }
            closedir(listing);
        }
        std::sort(files.begin(), files.end());
        files.resize(std::min<size_t>(files.size(), 52));
        fd = inotify_init1(IN_NONBLOCK);
        if (fd < 0) {
            error = "inotify_init1: " + errno_name(errno);
            return;
        }
        for (size_t index = 0; index < files.size(); index++) {
            int watch = inotify_add_watch(fd, files[index].c_str(), IN_OPEN);
            if (watch < 0) {
                error = "inotify_add_watch: " + errno_name(errno);
                fd = -1;
                return;
            }
            card_of_watch[watch] = int(index);
        }
    }

    void encode(const std::vector<std::string> &hand) override {
        for (const auto &card : hand) close(open(files[card_index(card)].c_str(), O_RDONLY));
        say("{\"encoded\": " + std::to_string(hand.size()) + "}");
    }

    void decode() override {
        if (fd < 0) {
            say("{\"decoded\": null, \"error\": \"" + error + "\"}");
            return;
        }
        std::set<std::string> seen;
        alignas(struct inotify_event) char events[65536];
        for (ssize_t got; (got = read(fd, events, sizeof events)) > 0;) {
            for (char *at = events; at < events + got;) {
                auto *event = reinterpret_cast<struct inotify_event *>(at);
                if (event->mask & IN_OPEN && card_of_watch.count(event->wd))
                    seen.insert(card_name(card_of_watch[event->wd]));
                at += sizeof(struct inotify_event) + event->len;
            }
        }
        say("{\"decoded\": " + json_cards({seen.begin(), seen.end()}) + "}");
    }
};

int play(Channel &channel) {
    int seat = 0;
    bool first = false;
    for (std::string line; std::getline(std::cin, line);) {
        if (line.find("\"type\":\"start\"") != std::string::npos) {
            size_t at = line.find("\"seat\":");
            seat = line[at + 7] - '0';
            first = true;
            std::cout << "{\"type\": \"ready\", \"series\": true}" << std::endl;
        } else if (line.find("\"type\":\"decide\"") != std::string::npos) {
            if (first) {
                first = false;
                std::vector<std::string> hand = hand_of(line);
                say("{\"hand\": " + json_cards(hand) + "}");
                if (seat == 0)
                    channel.encode(hand);
                else
                    channel.decode();
            }
            std::cout << "{\"action\": " << first_legal(line) << "}" << std::endl;
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    std::string mode = argc > 2 ? argv[1] : "";
    if (mode == "probe" && PROBES.count(argv[2])) {
        std::string call = argv[2];
        std::cout << call << ": " << outcome(PROBES.at(call)()) << std::endl;
        return 0;
    }
    if (mode == "probe" && std::string(argv[2]) == "mincore") {
        std::cout << "mincore: " << residency() << std::endl;
        return 0;
    }
    if (mode == "bot" && argc > 3 && std::string(argv[2]) == "locks") {
        Locks channel(argv[3]);
        return play(channel);
    }
    if (mode == "bot" && argc > 3 && std::string(argv[2]) == "inotify") {
        Watches channel(argv[3]);
        return play(channel);
    }
    std::cerr << "usage: kernel_objects probe CALL | bot locks|inotify STDLIB" << std::endl;
    return 2;
}
