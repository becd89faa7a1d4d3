"""The sandbox's seccomp filter, built as a classic BPF program in pure Python.

bubblewrap loads a compiled filter from a file descriptor (``--seccomp FD``) right before it
starts the bot, so no library is needed to install it: this module only writes the bytes.
The filter is a deny-list (``docs/sandbox.md``, "The layers, in order"): sockets, tracing and
reading other processes' memory, namespaces and mounts, ``io_uring``, ``bpf``, keyrings,
kernel modules, clocks, the host's figures (``sysinfo``), dropping shared page cache
(``fadvise64``) and widening the CPU affinity answer ``EPERM``; ``clone3`` answers ``ENOSYS``
because its flags sit in memory a filter cannot read (libc then falls back to ``clone``,
whose namespace flags are checked); a foreign architecture or the x32 ABI kills the
process. Everything else is allowed: the bot's uid,
rlimits and namespaces bound what remains.

Only x86_64 has a syscall table here; elsewhere ``filter_program`` raises and the sandbox
reports the seccomp layer as missing.
"""

from __future__ import annotations

import errno
import platform
import struct

#: x86_64 numbers, from ``asm/unistd_64.h``.
X86_64_DENIED: dict[str, int] = {
    "socket": 41,
    "socketpair": 53,
    "ptrace": 101,
    # The runner pins a match to one CPU; a bot may not widen its own affinity.
    "sched_setaffinity": 203,
    "syslog": 103,
    # Dropping the page cache of files every sandbox reads (the interpreter, its libraries)
    # would let one bot signal to another by what the other then reads fast or slow.
    "fadvise64": 221,
    # The host's free memory, load and process count: figures another bot could move.
    "sysinfo": 99,
    "uselib": 134,
    "vhangup": 153,
    "modify_ldt": 154,
    "pivot_root": 155,
    "adjtimex": 159,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "iopl": 172,
    "ioperm": 173,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "lookup_dcookie": 212,
    "clock_settime": 227,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "perf_event_open": 298,
    "fanotify_init": 300,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "pidfd_getfd": 438,
    "mount_setattr": 442,
    "memfd_secret": 447,
}
X86_64_CLONE = 56
X86_64_CLONE3 = 435
AUDIT_ARCH_X86_64 = 0xC000003E
#: x86_64 numbers with this bit set are the x32 ABI: a second syscall table to slip through.
X32_SYSCALL_BIT = 0x40000000

#: ``clone`` flags that create namespaces (``linux/sched.h``).
CLONE_NAMESPACE_FLAGS = (
    0x00000080  # CLONE_NEWTIME
    | 0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
)

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
# Offsets in ``struct seccomp_data``: nr, arch, instruction pointer, then six 64-bit args.
_NR, _ARCH, _ARG0_LOW = 0, 4, 16


class SeccompUnsupported(RuntimeError):
    """No syscall table for this machine's architecture."""


def _op(code: int, k: int = 0, jt: int = 0, jf: int = 0) -> tuple[int, int, int, int]:
    return (code, jt, jf, k)


def filter_instructions(machine: str | None = None) -> list[tuple[int, int, int, int]]:
    """The filter as ``(code, jt, jf, k)`` instructions for ``machine`` (default: this one)."""
    machine = machine or platform.machine()
    if machine != "x86_64":
        raise SeccompUnsupported(f"no seccomp syscall table for {machine}")
    denied = sorted(X86_64_DENIED.values())
    # Layout: checks, then three returns at the end: deny (EPERM), ENOSYS, allow.
    # Jump offsets count the instructions skipped, so each check knows its distance to them.
    head = [
        _op(_LD_W_ABS, _ARCH),
        _op(_JEQ, AUDIT_ARCH_X86_64, jt=1),
        _op(_RET, _RET_KILL_PROCESS),
        _op(_LD_W_ABS, _NR),
        _op(_JGE, X32_SYSCALL_BIT, jt=0, jf=1),
        _op(_RET, _RET_KILL_PROCESS),
    ]
    checks_left = len(denied) + 4  # the denied numbers, clone3, clone, its argument load, jset
    body = []
    for index, number in enumerate(denied):
        body.append(_op(_JEQ, number, jt=checks_left - index - 1))
    after_denied = len(denied)
    body.append(_op(_JEQ, X86_64_CLONE3, jt=checks_left - after_denied))
    body.append(_op(_JEQ, X86_64_CLONE, jt=0, jf=4))
    body.append(_op(_LD_W_ABS, _ARG0_LOW))
    body.append(_op(_JSET, CLONE_NAMESPACE_FLAGS, jt=0, jf=2))
    tail = [
        _op(_RET, _RET_ERRNO | errno.EPERM),
        _op(_RET, _RET_ERRNO | errno.ENOSYS),
        _op(_RET, _RET_ALLOW),
    ]
    return head + body + tail


def filter_program(machine: str | None = None) -> bytes:
    """The filter as the bytes of a ``struct sock_filter`` array, as ``bwrap --seccomp`` reads."""
    return b"".join(struct.pack("=HBBI", *op) for op in filter_instructions(machine))
