"""The sandbox's seccomp policy, one table, compiled by libseccomp into the filter bubblewrap loads.

bubblewrap loads a compiled filter from a file descriptor (``--seccomp FD``) right before it
starts the bot. The filter is a deny-list (``docs/sandbox.md``, "The seccomp filter"):
sockets, tracing and reading other processes' memory, namespaces and mounts, ``io_uring``,
``bpf``, keyrings, kernel modules, clocks, the host's figures (``sysinfo``), dropping shared
page cache (``fadvise64``) and widening the CPU affinity answer ``EPERM``; ``clone3`` answers
``ENOSYS`` because its flags sit in memory a filter cannot read (libc then falls back to
``clone``, whose namespace flags are checked); a foreign architecture (``int 0x80`` on
x86_64) or the x32 ABI kills the process. Everything else is allowed: the bot's uid, rlimits
and namespaces bound what remains. Compiled bots make their system calls directly, so the
filter, not the interpreter, is what they meet.

No kernel object crosses sandboxes. Every sandbox binds the same files (``/usr``, the
devices of ``/dev``), so what the kernel keeps for a process on a file's inode, a page of
the page cache or a name is seen from every other sandbox on the host, the twin of a
duplicate match's included. So these are refused too, each with an errno its callers
already meet (a kernel without the feature, or one that refuses this caller), so that
runtimes and build tools take their fallback: record locks (``fcntl``'s ``F_*LK*``,
``ENOLCK``) and exclusive ``flock`` (``EOPNOTSUPP``; a shared one conflicts with nothing left,
so it shows nothing, and Go's build takes one on ``go.mod``); leases and ``F_NOTIFY``
(``EINVAL``); ``inotify`` (``ENOSYS``) and ``fanotify`` (``EPERM``); the exact page-cache
probes ``cachestat`` (``EPERM``), ``RWF_NOWAIT`` reads and writes (``EOPNOTSUPP``) and Linux
AIO, which takes that flag in memory (``ENOSYS``); ``madvise`` advice acting on pages others
share (``MADV_COLD``, ``MADV_PAGEOUT``, KSM's ``MADV_MERGEABLE`` and ``PR_SET_MEMORY_MERGE``:
``EINVAL``; ``MADV_HWPOISON``, ``MADV_SOFT_OFFLINE``: ``EPERM``). ``mincore`` and ``futex`` stay
(``docs/sandbox.md`` says why).

``DENIED`` is the policy by name, ``DENIED_WHEN`` the calls refused by an argument (one row a
condition; ``clone``'s namespace flags and ``socketpair``'s domain are rows too), and
``NUMBERS`` the calls an older libseccomp may not know by name. ``filter_program`` hands them
as JSON to ``seccomp_export.py``, run by Debian's ``/usr/bin/python3`` (libseccomp's binding,
package ``python3-seccomp``, exists for that interpreter only, not the worker's virtual
environment), which builds the filter for this machine's architecture (x86_64, aarch64, ...)
and writes its BPF. Without the binding ``SeccompUnavailable`` says why, the probe reports
the seccomp layer missing, and the sandbox stays below ``full``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import NamedTuple

#: The Python that has libseccomp's binding: Debian's own.
SECCOMP_PYTHON = "/usr/bin/python3"
EXPORTER = Path(__file__).with_name("seccomp_export.py")
EXPORT_SECONDS = 10.0

#: System call name -> the errno it answers. A name an architecture lacks matches no call
#: there (``socketcall``, ``fadvise64_64`` and ``umount`` are 32-bit ones'); a name
#: libseccomp does not know fails the build, so the layer is reported missing.
DENIED: dict[str, str] = {
    **dict.fromkeys(("socket", "socketcall"), "EPERM"),
    **dict.fromkeys(("ptrace", "process_vm_readv", "process_vm_writev", "kcmp"), "EPERM"),
    "pidfd_getfd": "EPERM",
    # The runner pins a match to one CPU; a bot may not widen its own affinity.
    "sched_setaffinity": "EPERM",
    "syslog": "EPERM",
    # Dropping the page cache of files every sandbox reads (the interpreter, its libraries)
    # would let one bot signal to another by what the other then reads fast or slow.
    **dict.fromkeys(("fadvise64", "fadvise64_64", "arm_fadvise64_64"), "EPERM"),
    # The host's free memory, load and process count: figures another bot could move.
    "sysinfo": "EPERM",
    **dict.fromkeys(("unshare", "setns"), "EPERM"),
    # clone3's flags sit in memory the filter cannot read: ENOSYS makes libc fall back to
    # clone, whose flags it can (``CLONE_NAMESPACE_FLAGS``).
    "clone3": "ENOSYS",
    **dict.fromkeys(
        (
            "mount",
            "umount",
            "umount2",
            "pivot_root",
            "chroot",
            "open_tree",
            "move_mount",
            "fsopen",
            "fsconfig",
            "fsmount",
            "fspick",
            "mount_setattr",
            "name_to_handle_at",
            "open_by_handle_at",
            "fanotify_init",
            "fanotify_mark",
            "quotactl",
            "swapon",
            "swapoff",
        ),
        "EPERM",
    ),
    **dict.fromkeys(("io_uring_setup", "io_uring_enter", "io_uring_register"), "EPERM"),
    **dict.fromkeys(("bpf", "perf_event_open", "userfaultfd", "lookup_dcookie"), "EPERM"),
    **dict.fromkeys(("add_key", "request_key", "keyctl"), "EPERM"),
    **dict.fromkeys(
        ("init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load"),
        "EPERM",
    ),
    **dict.fromkeys(("settimeofday", "clock_settime", "adjtimex", "clock_adjtime"), "EPERM"),
    **dict.fromkeys(("uselib", "vhangup", "modify_ldt", "iopl", "ioperm"), "EPERM"),
    **dict.fromkeys(("acct", "reboot", "memfd_secret"), "EPERM"),
    # Kernel objects keyed by a shared inode: a watch on a file every sandbox binds queues
    # the opens of every other sandbox (ENOSYS: a kernel without inotify; fanotify above).
    **dict.fromkeys(
        ("inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch"), "ENOSYS"
    ),
    # Page-cache probes: which pages of a shared file are cached, exactly. cachestat answers
    # EPERM for a file the caller could not write on recent kernels anyway; Linux AIO takes
    # RWF_NOWAIT in memory the filter cannot read (ENOSYS: a kernel without AIO).
    "cachestat": "EPERM",
    **dict.fromkeys(
        ("io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents"),
        "ENOSYS",
    ),
}

#: Calls an older libseccomp may not know by name -> their number, which is the same on
#: every architecture of ``ARCHES`` (calls from 424 on are numbered alike everywhere but
#: alpha, ia64 and MIPS). The exporter uses the number only where libseccomp lacks the name,
#: and says so on stderr. Debian 12's libseccomp 2.5.4 (+deb12u1) knows ``cachestat``.
NUMBERS: dict[str, int] = {"cachestat": 451}


class DeniedWhen(NamedTuple):
    """``calls`` answer ``errno`` when argument ``arg`` (from 0) compares ``op`` with any of
    ``values``; ``arg_on`` names architectures where the argument sits elsewhere.

    ``op`` is ``"equals"`` (the low 32 bits equal the value: these arguments are C ints, of
    which the kernel reads 32 bits, so bits above cannot slip a call past), ``"has"`` (every
    bit of the value is set) or ``"differs"`` (the whole argument differs from the one
    value: refuses more, never less).
    """

    calls: tuple[str, ...]
    arg: int
    op: str
    values: tuple[int, ...]
    errno: str
    arg_on: dict[str, int] = {}

    def as_json(self) -> dict:
        return {**self._asdict(), "calls": list(self.calls), "values": list(self.values)}


#: ``clone`` flags that create namespaces (``linux/sched.h``): ``clone`` with any answers EPERM.
CLONE_NAMESPACE_FLAGS: dict[str, int] = {
    "CLONE_NEWTIME": 0x00000080,
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
CLONE_ACTION = "EPERM"
#: ``socketpair`` makes two connected sockets that reach nothing outside the process: the
#: JVM's file channels need a Unix one (its dispatcher's pre-close trick). Any other domain
#: answers EPERM, as ``socket`` does.
SOCKETPAIR_DOMAINS = {"AF_UNIX": 1}

#: ``fcntl`` commands of record locks (``asm-generic/fcntl.h``): a lock on a file every
#: sandbox binds is seen (``F_GETLK``, a conflict) by every other one. The ``*64`` ones
#: exist in ``fcntl64`` only, on 32-bit architectures.
RECORD_LOCKS = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7}
RECORD_LOCKS_64 = {"F_GETLK64": 12, "F_SETLK64": 13, "F_SETLKW64": 14}
OFD_LOCKS = {"F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38}
#: Leases (a holder is told of others' opens) and directory notification (dnotify).
LEASES_AND_NOTIFY = {"F_SETLEASE": 1024, "F_GETLEASE": 1025, "F_NOTIFY": 1026}
#: ``flock``'s exclusive lock: only it conflicts with another lock, so only it can be seen.
LOCK_EX = 2
#: ``madvise`` advice that acts on pages other processes share (the page cache of a shared
#: file, KSM's merging of equal pages across processes): ``EINVAL``, a kernel without it.
SHARED_PAGE_ADVICE = {"MADV_MERGEABLE": 12, "MADV_COLD": 20, "MADV_PAGEOUT": 21}
#: Advice on physical pages that needs ``CAP_SYS_ADMIN``: ``EPERM``, as without it.
PRIVILEGED_ADVICE = {"MADV_HWPOISON": 100, "MADV_SOFT_OFFLINE": 101}
#: ``preadv2``/``pwritev2`` flag: answer ``EAGAIN`` rather than wait for the disk, which
#: tells exactly whether a page of a shared file is cached.
RWF_NOWAIT = 0x8
#: ``prctl`` option that has KSM merge every page of the process.
PR_SET_MEMORY_MERGE = 67

#: The calls refused by one of their arguments, one row a condition.
DENIED_WHEN: tuple[DeniedWhen, ...] = (
    DeniedWhen(
        ("clone",),
        0,
        "has",
        tuple(sorted(CLONE_NAMESPACE_FLAGS.values())),
        CLONE_ACTION,
        arg_on={"S390": 1, "S390X": 1},  # s390's clone takes the stack first
    ),
    DeniedWhen(("socketpair",), 0, "differs", tuple(SOCKETPAIR_DOMAINS.values()), "EPERM"),
    DeniedWhen(("flock",), 1, "has", (LOCK_EX,), "EOPNOTSUPP"),
    DeniedWhen(("fcntl",), 1, "equals", (*RECORD_LOCKS.values(), *OFD_LOCKS.values()), "ENOLCK"),
    DeniedWhen(
        ("fcntl64",),
        1,
        "equals",
        (*RECORD_LOCKS.values(), *RECORD_LOCKS_64.values(), *OFD_LOCKS.values()),
        "ENOLCK",
    ),
    DeniedWhen(("fcntl", "fcntl64"), 1, "equals", tuple(LEASES_AND_NOTIFY.values()), "EINVAL"),
    DeniedWhen(("madvise",), 2, "equals", tuple(SHARED_PAGE_ADVICE.values()), "EINVAL"),
    DeniedWhen(("madvise",), 2, "equals", tuple(PRIVILEGED_ADVICE.values()), "EPERM"),
    # The same advice on the process's own memory through a pidfd (the advice comes 4th).
    DeniedWhen(("process_madvise",), 3, "equals", tuple(SHARED_PAGE_ADVICE.values()), "EINVAL"),
    DeniedWhen(("preadv2", "pwritev2"), 5, "has", (RWF_NOWAIT,), "EOPNOTSUPP"),
    DeniedWhen(("prctl",), 0, "equals", (PR_SET_MEMORY_MERGE,), "EINVAL"),
)

#: The architectures (libseccomp's names) whose constants the rows above and ``NUMBERS``
#: hold: those of the generic headers. Elsewhere (MIPS, PA-RISC: other ``fcntl`` numbers)
#: the filter is not built, the probe reports the layer missing and uploads are refused.
ARCHES = (
    "X86_64",
    "X86",
    "AARCH64",
    "ARM",
    "RISCV64",
    "PPC64LE",
    "PPC64",
    "PPC",
    "S390X",
    "S390",
)


class SeccompUnavailable(RuntimeError):
    """libseccomp's binding is missing here, or it could not compile the policy."""


def policy_json() -> str:
    """The policy as ``seccomp_export.py`` reads it on stdin."""
    return json.dumps(
        {
            "deny": DENIED,
            "deny_when": [row.as_json() for row in DENIED_WHEN],
            "numbers": NUMBERS,
            "arches": list(ARCHES),
        }
    )


def filter_program(
    python: str = SECCOMP_PYTHON, *, readable: bool = False, policy: str | None = None
) -> bytes:
    """The filter as the bytes of a ``struct sock_filter`` array, as ``bwrap --seccomp``
    reads; with ``readable``, libseccomp's pseudo filter code of it instead. ``policy``
    (JSON, as ``policy_json`` writes it) replaces this module's tables."""
    argv = (python, "-I", str(EXPORTER), *(("--pfc",) if readable else ()))
    try:
        run = subprocess.run(
            argv,
            input=(policy_json() if policy is None else policy).encode(),
            capture_output=True,
            timeout=EXPORT_SECONDS,
            cwd="/",
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise SeccompUnavailable(f"{python} cannot build the seccomp filter: {error}") from None
    if run.returncode != 0 or not run.stdout:
        why = run.stderr.decode(errors="replace").strip()[-500:] or f"exit status {run.returncode}"
        raise SeccompUnavailable(why)
    return run.stdout
