"""Compile the sandbox's seccomp policy with libseccomp; run by Debian's ``/usr/bin/python3``.

``/usr/bin/python3 -I seccomp_export.py < policy.json > filter.bpf``

This file is a program of its own, not a module of Baize: Debian's binding of libseccomp
(package ``python3-seccomp``, module ``seccomp``) is installed for Debian's interpreter only,
while the worker runs in a virtual environment of another Python. So it imports nothing but
``seccomp`` and the standard library, reads the policy that ``arena.sandbox.seccomp`` holds
(``policy_json()``) as JSON on stdin, and writes the filter as the raw ``struct sock_filter``
array bubblewrap loads with ``--seccomp FD``. ``--pfc`` writes libseccomp's readable
rendering (pseudo filter code) instead.

The policy, as JSON::

    {"deny": {"socket": "EPERM", "clone3": "ENOSYS", ...},
     "deny_when": [
        {"calls": ["clone"], "arg": 0, "op": "has", "values": [128, 131072, ...],
         "errno": "EPERM", "arg_on": {"S390": 1, "S390X": 1}},
        {"calls": ["fcntl"], "arg": 1, "op": "equals", "values": [5, 6, 7, 36, 37, 38],
         "errno": "ENOLCK", "arg_on": {}},
        ...],
     "numbers": {"cachestat": 451},
     "arches": ["X86_64", "AARCH64", ...]}

Every call named in ``deny`` answers its errno. Each row of ``deny_when`` refuses its
``calls`` with its ``errno`` when argument ``arg`` (from 0; ``arg_on`` maps an architecture,
by libseccomp's name, to another place) compares by ``op`` with any one of ``values``, each
value a rule of its own (rules of one call are alternatives):

- ``equals``: the argument's low 32 bits are the value (``MASKED_EQ`` with the mask
  ``0xffffffff``). These arguments are C ints, of which the kernel reads 32 bits: a plain
  64-bit comparison would let a call with bits set above them through.
- ``has``: every bit of the value is set (``MASKED_EQ`` with the value as its own mask).
- ``differs``: the argument is not the value (``NE``, all 64 bits, so it refuses more, never
  less); one value only, as two would refuse everything.

Everything else is allowed. ``numbers`` gives the number of a call this libseccomp may not
know by name (it then refuses that number, and says so on stderr); a name it does not know
and ``numbers`` does not give fails the build. ``arches`` lists the architectures whose
constants the rows and ``numbers`` hold: on any other the policy does not compile.

A call of a foreign architecture (``int 0x80`` on x86_64, AArch32 on aarch64) and, on
x86_64, one of the x32 ABI (number with bit 30 set) kills the process: libseccomp builds the
filter for the native architecture only, and its bad-architecture action is set to kill the
process.

Exit status 3 and a line on stderr if ``import seccomp`` fails; 4 if the policy names a call
libseccomp does not know, or holds anything else it cannot compile.
"""

from __future__ import annotations

import errno
import json
import sys

NO_BINDING = 3
BAD_POLICY = 4

#: libseccomp's answer for a name it does not know (``__NR_SCMP_ERROR``).
_UNKNOWN_NAME = -1
_LOW_32 = 0xFFFFFFFF
#: ``op`` -> libseccomp's operator and the (mask, datum) or (datum,) it compares with.
_OPS = {
    "equals": ("MASKED_EQ", lambda value: (_LOW_32, value)),
    "has": ("MASKED_EQ", lambda value: (value, value)),
    "differs": ("NE", lambda value: (value,)),
}
_POLICY_KEYS = frozenset({"deny", "deny_when", "numbers", "arches"})


def build(seccomp, policy: dict):  # noqa: ANN001, ANN201 - the module is only known at run time
    """The ``SyscallFilter`` of ``policy`` for this machine's architecture."""
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    # A call through another architecture's entry (or x32's numbers): the process dies.
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    numbers = policy.get("numbers", {})
    for name, action in sorted(policy["deny"].items()):
        try:
            rules.add_rule(_errno(seccomp, action), _syscall(seccomp, name, numbers))
        except (RuntimeError, ValueError) as error:
            raise ValueError(f"libseccomp cannot deny {name!r}: {error}") from None
    unknown = set(policy) - _POLICY_KEYS
    if unknown:
        raise ValueError(f"unknown keys in the policy: {sorted(unknown)}")
    native = _native_arch_name(seccomp)
    if "arches" in policy and native not in policy["arches"]:
        raise ValueError(
            f"the policy's argument values are those of {policy['arches']},"
            f" not of this architecture ({native or seccomp.system_arch()})"
        )
    for row in policy.get("deny_when", ()):
        operator, operands = _OPS[row["op"]]
        if operator == "NE" and len(row["values"]) != 1:
            raise ValueError(f"'differs' takes one value, not {row['values']}: {row}")
        arg = row.get("arg_on", {}).get(native, row["arg"])
        for name in row["calls"]:
            call = _syscall(seccomp, name, numbers)
            for value in row["values"]:
                comparison = seccomp.Arg(arg, getattr(seccomp, operator), *operands(value))
                try:
                    rules.add_rule(_errno(seccomp, row["errno"]), call, comparison)
                except (RuntimeError, ValueError) as error:
                    raise ValueError(f"libseccomp cannot deny {name!r} on {row}: {error}") from None
    return rules


def _errno(seccomp, name: str):  # noqa: ANN001, ANN202
    return seccomp.ERRNO(getattr(errno, name))


def _syscall(seccomp, name: str, numbers: dict) -> str | int:  # noqa: ANN001
    """``name``, or its number from ``numbers`` where this libseccomp does not know it."""
    if name in numbers and seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) == _UNKNOWN_NAME:
        print(
            f"libseccomp does not know {name!r}: refused by its number, {numbers[name]}",
            file=sys.stderr,
        )
        return int(numbers[name])
    return name


def _native_arch_name(seccomp) -> str:  # noqa: ANN001
    """libseccomp's name of this machine's architecture ("X86_64"), or ""."""
    # The binding gives the names' audit numbers signed (X86_64 is -1073741762) and the
    # machine's unsigned (3221225534): compare them as the 32-bit numbers they are.
    native = seccomp.system_arch() & _LOW_32
    for name in dir(seccomp.Arch):
        if name.isupper() and name != "NATIVE" and getattr(seccomp.Arch, name) & _LOW_32 == native:
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
