"""A classic BPF interpreter for seccomp filters, enough for what libseccomp emits: run the
sandbox's exported filter on a system call and read the action it takes, without a kernel."""

from __future__ import annotations

import struct

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_I386 = 0x40000003
X32_SYSCALL_BIT = 0x40000000

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
RET_ACTION_FULL = 0xFFFF0000

_BPF_CLASS = 0x07
_LD, _ALU, _JMP, _RET = 0x00, 0x04, 0x05, 0x06
_W_ABS = 0x20  # BPF_W | BPF_ABS
_AND_K = 0x50
_JEQ, _JGT, _JGE, _JSET = 0x10, 0x20, 0x30, 0x40
_JA = 0x00


def instructions(program: bytes) -> list[tuple[int, int, int, int]]:
    """``(code, jt, jf, k)`` of each ``struct sock_filter`` in ``program``."""
    assert len(program) % 8 == 0, "not an array of sock_filter"
    return [struct.unpack_from("=HBBI", program, offset) for offset in range(0, len(program), 8)]


def seccomp_data(nr: int, arch: int, args: tuple[int, ...] = ()) -> bytes:
    """``struct seccomp_data``: nr, arch, instruction pointer, six 64-bit arguments."""
    padded = (*args, *(0,) * (6 - len(args)))
    return struct.pack("=iIQ6Q", nr, arch, 0, *padded)


def run(program: bytes, nr: int, arch: int = AUDIT_ARCH_X86_64, args: tuple[int, ...] = ()) -> int:
    """The return value of the filter for this call (``RET_*`` | data)."""
    ops = instructions(program)
    data = seccomp_data(nr, arch, args)
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = ops[pc]
        pc += 1
        kind = code & _BPF_CLASS
        if kind == _LD:
            assert code == _W_ABS, f"unknown load {code:#x}"
            acc = struct.unpack_from("=I", data, k)[0]
        elif kind == _ALU:
            assert code & 0xF8 == _AND_K, f"unknown ALU op {code:#x}"
            acc &= k
        elif kind == _JMP:
            op = code & 0xF0
            if op == _JA:
                pc += k
                continue
            taken = {
                _JEQ: acc == k,
                _JGT: acc > k,
                _JGE: acc >= k,
                _JSET: bool(acc & k),
            }[op]
            pc += jt if taken else jf
        elif kind == _RET:
            return k
        else:
            raise AssertionError(f"unknown instruction {code:#x}")
