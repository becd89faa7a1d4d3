"""Compile the sandbox's seccomp policy with libseccomp; run by Debian's ``/usr/bin/python3``.

``/usr/bin/python3 -I seccomp_export.py < policy.json > filter.bpf``

This file is a program of its own, not a module of Baize: Debian's binding of libseccomp
(package ``python3-seccomp``, module ``seccomp``) is installed for Debian's interpreter only,
while the worker runs in a virtual environment of another Python. So it imports nothing but
``seccomp`` and the standard library, reads the policy that ``bots.sandbox.seccomp`` holds
(``policy_json()``) as JSON on stdin, and writes the filter as the raw ``struct sock_filter``
array bubblewrap loads with ``--seccomp FD``. ``--pfc`` writes libseccomp's readable
rendering (pseudo filter code) instead.

The policy, as JSON::

    {"deny": {"socket": "EPERM", "clone3": "ENOSYS", ...},
     "clone_flags": [128, 131072, ...], "clone_action": "EPERM"}

Every call named in ``deny`` answers its errno; ``clone`` answers ``clone_action`` when its
flags hold any of ``clone_flags``; everything else is allowed. A call of a foreign
architecture (``int 0x80`` on x86_64, AArch32 on aarch64) and, on x86_64, one of the x32 ABI
(number with bit 30 set) kills the process: libseccomp builds the filter for the native
architecture only, and its bad-architecture action is set to kill the process.

Exit status 3 and a line on stderr if ``import seccomp`` fails; 4 if the policy names a call
libseccomp does not know, or holds anything else it cannot compile.
"""

from __future__ import annotations

import errno
import json
import sys

NO_BINDING = 3
BAD_POLICY = 4

#: Architectures whose ``clone`` takes the stack first and the flags second.
_CLONE_FLAGS_SECOND = frozenset({"S390", "S390X"})


def build(seccomp, policy: dict):  # noqa: ANN001, ANN201 - the module is only known at run time
    """The ``SyscallFilter`` of ``policy`` for this machine's architecture."""
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    # A call through another architecture's entry (or x32's numbers): the process dies.
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    for name, action in sorted(policy["deny"].items()):
        try:
            rules.add_rule(seccomp.ERRNO(getattr(errno, action)), name)
        except (RuntimeError, ValueError) as error:
            raise ValueError(f"libseccomp cannot deny {name!r}: {error}") from None
    native = _native_arch_name(seccomp)
    flags_arg = 1 if native in _CLONE_FLAGS_SECOND else 0
    clone_action = seccomp.ERRNO(getattr(errno, policy["clone_action"]))
    # One rule per flag: rules of one call are alternatives, and MASKED_EQ checks all bits.
    for flag in policy["clone_flags"]:
        rules.add_rule(clone_action, "clone", seccomp.Arg(flags_arg, seccomp.MASKED_EQ, flag, flag))
    # socketpair: EPERM unless its domain is allowed (one allowed domain: one NE rule).
    (domain,) = policy["socketpair_domains"]
    rules.add_rule(seccomp.ERRNO(errno.EPERM), "socketpair", seccomp.Arg(0, seccomp.NE, domain))
    return rules


def _native_arch_name(seccomp) -> str:  # noqa: ANN001
    native = seccomp.system_arch()
    for name in dir(seccomp.Arch):
        if name.isupper() and name != "NATIVE" and int(getattr(seccomp.Arch, name)) == native:
            return name
    return ""


def main(argv: list[str]) -> int:
    try:
        import seccomp
    except ImportError as error:
        print(
            f"libseccomp's Python binding is missing for {sys.executable}"
            f" (Debian package python3-seccomp): {error}",
            file=sys.stderr,
        )
        return NO_BINDING
    try:
        rules = build(seccomp, json.load(sys.stdin))
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        print(f"the seccomp policy does not compile: {error}", file=sys.stderr)
        return BAD_POLICY
    sys.stdout.flush()
    if "--pfc" in argv:
        rules.export_pfc(sys.stdout)
    else:
        rules.export_bpf(sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
