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

``DENIED`` is the policy, by name. ``filter_program`` hands it as JSON to
``seccomp_export.py``, run by Debian's ``/usr/bin/python3`` (libseccomp's binding, package
``python3-seccomp``, exists for that interpreter only, not the worker's virtual environment),
which builds the filter for this machine's architecture (x86_64, aarch64, ...) and writes
its BPF. Without the binding ``SeccompUnavailable`` says why, the probe reports the seccomp
layer missing, and the sandbox stays below ``full``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

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
}

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


class SeccompUnavailable(RuntimeError):
    """libseccomp's binding is missing here, or it could not compile the policy."""


def policy_json() -> str:
    """The policy as ``seccomp_export.py`` reads it on stdin."""
    return json.dumps(
        {
            "deny": DENIED,
            "clone_flags": sorted(CLONE_NAMESPACE_FLAGS.values()),
            "clone_action": CLONE_ACTION,
            "socketpair_domains": sorted(SOCKETPAIR_DOMAINS.values()),
        }
    )


def filter_program(python: str = SECCOMP_PYTHON, *, readable: bool = False) -> bytes:
    """The filter as the bytes of a ``struct sock_filter`` array, as ``bwrap --seccomp``
    reads; with ``readable``, libseccomp's pseudo filter code of it instead."""
    argv = (python, "-I", str(EXPORTER), *(("--pfc",) if readable else ()))
    try:
        run = subprocess.run(
            argv,
            input=policy_json().encode(),
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
