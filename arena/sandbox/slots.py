"""Bot slots: one unprivileged uid per running sandboxed bot, and sweeping a uid clean.

A slot is a uid (``uid_base + index``) held through an exclusive ``flock`` on a lock file, so
any number of worker processes on one machine share the slots without a server, and a
crashed holder's lock is released by the kernel. One uid per slot matters
(``docs/sandbox.md``, traps 1 and 8): ``RLIMIT_NPROC`` counts every task of a uid, and bots
sharing a uid could signal or read each other. The uids need no passwd entry. Before a slot
is handed out and after its bot is closed, everything still running under its uid is killed
(trap 5: the sweep catches what escaped the process group).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

_MAX_SWEEP_PASSES = 64


class NoFreeSlot(RuntimeError):
    """Every sandbox slot is taken by a running bot."""


@dataclass
class Slot:
    """One held slot; ``release`` sweeps its uid and lets the next bot have it."""

    index: int
    uid: int
    _lock_fd: int | None = field(repr=False)

    def release(self) -> None:
        if self._lock_fd is None:
            return
        sweep_uid(self.uid)
        os.close(self._lock_fd)  # closing the descriptor drops the flock
        self._lock_fd = None


def acquire_slot(lock_dir: Path, uid_base: int, slots: int) -> Slot:
    """The first free slot, swept clean; ``NoFreeSlot`` when all ``slots`` are held."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    for index in range(slots):
        fd = os.open(lock_dir / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        slot = Slot(index, uid_base + index, fd)
        sweep_uid(slot.uid)  # a previous holder may have died before sweeping
        return slot
    raise NoFreeSlot(f"all {slots} sandbox slots are in use")


def sweep_uid(uid: int) -> None:
    """SIGKILL every live process of ``uid`` and reap those that are this process's children.

    Zombies whose parent is someone else are left to that parent: they hold no resources but
    their pid. ``uid`` 0 is refused: this would be the end of the machine, not of a bot.
    """
    if uid == 0:
        raise ValueError("refusing to sweep uid 0")
    me = os.getpid()
    for _ in range(_MAX_SWEEP_PASSES):
        live = []
        for process in processes_of_uid(uid):
            if process.state == "Z":
                if process.parent == me:
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(process.pid, os.WNOHANG)
                continue
            live.append(process.pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        if not live:
            return
        time.sleep(0.001)  # a SIGKILLed task needs a moment to become a zombie


class UidProcess(NamedTuple):
    pid: int
    #: ``R``, ``S``, ``D``, ``T`` (stopped), ``Z`` (zombie), ... as in ``/proc/PID/stat``.
    state: str
    parent: int
    #: CPU time in clock ticks: its own (user and system) and that of its reaped children.
    cpu_ticks: int


def processes_of_uid(uid: int) -> list[UidProcess]:
    """Every process whose owner is ``uid``, read from ``/proc``."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            stat = Path(f"/proc/{entry.name}/stat").read_bytes()
        except OSError:
            continue  # it ended while we looked
        # The command name may hold spaces and parentheses: fields start after the last ")".
        # From there: state, ppid, ... and utime, stime, cutime, cstime at 11 to 14.
        fields = stat[stat.rfind(b")") + 2 :].split(b" ", 16)
        ticks = sum(int(value) for value in fields[11:15])
        found.append(UidProcess(int(entry.name), fields[0].decode(), int(fields[1]), ticks))
    return found
