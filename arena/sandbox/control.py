"""Turns and CPU time of one sandbox slot: freeze all a bot runs, thaw it, read what it used.

The referee lets only the bot to move run (``docs/bot-protocol.md``, "Fair play"): the
other seat's every process is frozen, and a decision is charged the CPU time its own slot
used. Two ways to do both, chosen per host by the probe:

- the slot's cgroups, where the worker can make them: the freezer (v1 ``freezer.state``,
  v2 ``cgroup.freeze``) stops every task of the cgroup at once, however many it forked or
  however it detached (``setsid``), and the kernel's accounting (v1 ``cpuacct.usage``, v2
  ``cpu.stat``) counts every task's CPU time, those that ended included;
- the slot's uid elsewhere (a container whose cgroups are read-only): ``SIGSTOP`` to every
  process of the uid, scanned again until one scan finds them all stopped (a sibling still
  running could continue a stopped one), ``SIGCONT`` to thaw; CPU time is the sum over the
  uid's processes of their own and their reaped children's time (``/proc/PID/stat``), so a
  process that ended and was reaped outside the uid takes its time with it. The CPU
  charge, not the freeze, is what keeps this fallback fair: a bot that escaped a stop still
  only burns time it is charged for, and its opponent's clock counts its own CPU alone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .slots import processes_of_uid

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: A freeze by signals gives up after this many scans (each a few ms): the nproc limit
#: bounds how many processes there are to stop, so more means a bot fighting the stops.
_MAX_STOP_SCANS = 50
#: A stopped process needs the CPU a moment to act on its SIGSTOP.
_STOP_PAUSE_SECONDS = 0.0005


class _HeldFile:
    """A cgroup file opened once and kept: opening one costs ten times writing or reading
    it, and a match freezes, thaws and reads hundreds of times."""

    def __init__(self, path: Path, flags: int) -> None:
        self.path, self._flags = path, flags
        self._fd: int | None = None

    def fd(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, self._flags | os.O_CLOEXEC)
        return self._fd

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


class CgroupFreezer:
    """The freezer of one slot cgroup."""

    def __init__(
        self, state_file: Path, frozen: bytes, thawed: bytes, unfrozen: Path | None = None
    ) -> None:
        self._state = _HeldFile(state_file, os.O_WRONLY)
        self._frozen, self._thawed = frozen, thawed
        #: The ``cgroup.procs`` of a cgroup never frozen, where the launcher may go.
        self._unfrozen = unfrozen

    @classmethod
    def of(cls, folder: Path, version: int) -> CgroupFreezer:
        if version == 1:
            # v1 lets a cgroup with children hold tasks: the slots' parent takes them.
            unfrozen = folder.parent / "cgroup.procs"
            return cls(folder / "freezer.state", b"FROZEN", b"THAWED", unfrozen)
        # v2's parent has the memory controller on, so it may hold no process.
        return cls(folder / "cgroup.freeze", b"1", b"0")

    def freeze(self) -> None:
        os.write(self._state.fd(), self._frozen)

    def thaw(self) -> None:
        os.write(self._state.fd(), self._thawed)

    def release_launcher(self, pid: int) -> None:
        """Take the sandbox's outermost process ``pid`` out of the freezer, once it has
        started the bot (which stays in).

        That process is bubblewrap's monitor: outside the bot's PID namespace, it is neither
        visible to the bot nor reachable by its signals, and it only waits for the bot to
        end, so leaving it running gives the bot nothing. Left in, every freeze and every
        thaw would wake it as well as the bot: a few µs and two context switches more at
        each change of turn. Where it cannot move (v2, or the move is refused), it stays:
        only slower.
        """
        if self._unfrozen is None:
            return
        with contextlib.suppress(OSError):
            self._unfrozen.write_text(str(pid))

    def close(self) -> None:
        self._state.close()

    def describe(self) -> str:
        return f"the other bot's slot cgroup is frozen ({self._state.path.name})"


@dataclass(frozen=True)
class UidFreezer:
    """Every process of one uid stopped and continued by signals."""

    uid: int

    def freeze(self) -> None:
        for _ in range(_MAX_STOP_SCANS):
            running = [p.pid for p in processes_of_uid(self.uid) if p.state not in "TtZX"]
            if not running:
                return
            for pid in running:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
            time.sleep(_STOP_PAUSE_SECONDS)

    def thaw(self) -> None:
        for process in processes_of_uid(self.uid):
            if process.state == "T":
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGCONT)

    def release_launcher(self, pid: int) -> None:
        pass  # a uid cannot tell the launcher from the bot: both are stopped

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "every process of the other bot's uid is stopped (SIGSTOP; no freezer cgroup)"


def waiting_by_task(tasks: Iterable[int]) -> dict[int, float] | None:
    """Seconds each of ``tasks`` (thread ids) waited for a CPU while ready to run: the second
    figure of ``/proc/TID/schedstat``, in nanoseconds. A task gone meanwhile is left out.

    ``None`` while one of them is ready to run (state ``R``): the kernel adds a wait to that
    figure only when the wait ends, so a task waiting now would show its wait as idle time.
    """
    waiting = {}
    for task in tasks:
        try:
            with open(f"/proc/{task}/stat", "rb") as file:
                stat = file.read()
            # The command name may hold spaces and parentheses: fields start after the last ")".
            if stat[stat.rfind(b")") + 2 :][:1] == b"R":
                return None
            with open(f"/proc/{task}/schedstat", "rb") as file:
                waiting[task] = int(file.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            continue
    return waiting


class CgroupCpuMeter:
    """The CPU time the kernel counted for one slot cgroup, every task it ever held."""

    def __init__(self, usage_file: Path, version: int) -> None:
        self._usage = _HeldFile(usage_file, os.O_RDONLY)
        self._version = version
        # cgroup v1 lists a cgroup's threads in ``tasks``, v2 in ``cgroup.threads``.
        self._tasks = usage_file.parent / ("tasks" if version == 1 else "cgroup.threads")

    @classmethod
    def of(cls, folder: Path, version: int) -> CgroupCpuMeter:
        return cls(folder / ("cpuacct.usage" if version == 1 else "cpu.stat"), version)

    def cpu_seconds(self) -> float:
        # Reading at offset 0 makes the kernel format the file afresh.
        text = os.pread(self._usage.fd(), 256, 0)
        if self._version == 1:
            return int(text) / 1e9
        # cgroup v2's cpu.stat starts with "usage_usec N".
        return int(text.split(None, 2)[1]) / 1e6

    def waiting_by_task(self) -> dict[int, float] | None:
        try:
            tasks = [int(line) for line in self._tasks.read_text().split()]
        except OSError:
            return {}
        return waiting_by_task(tasks)

    def close(self) -> None:
        self._usage.close()

    def describe(self) -> str:
        return f"the CPU time of its slot cgroup ({self._usage.path.name})"


@dataclass(frozen=True)
class UidCpuMeter:
    """The CPU time of the live processes of one uid and of the children they reaped."""

    uid: int

    def cpu_seconds(self) -> float:
        return sum(p.cpu_ticks for p in processes_of_uid(self.uid)) / _CLOCK_TICKS

    def waiting_by_task(self) -> dict[int, float] | None:
        tasks = []
        for process in processes_of_uid(self.uid):
            with contextlib.suppress(OSError):
                tasks += [int(name) for name in os.listdir(f"/proc/{process.pid}/task")]
        return waiting_by_task(tasks)

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "the CPU time of its uid's processes (/proc; no accounting cgroup)"


@dataclass(frozen=True)
class SlotControl:
    """What the referee needs of one running sandboxed bot (``arena.runner.ProcessControl``);
    one per start of a bot: it holds the slot's cgroup files open until ``close``."""

    freezer: CgroupFreezer | UidFreezer
    meter: CgroupCpuMeter | UidCpuMeter

    def freeze(self) -> None:
        self.freezer.freeze()

    def thaw(self) -> None:
        self.freezer.thaw()

    def cpu_seconds(self) -> float:
        return self.meter.cpu_seconds()

    def waiting_by_task(self) -> dict[int, float] | None:
        return self.meter.waiting_by_task()

    def running(self, pid: int) -> None:
        self.freezer.release_launcher(pid)

    def close(self) -> None:
        """Let go of the cgroup files held open (the control is done with)."""
        self.freezer.close()
        self.meter.close()

    def describe(self) -> str:
        return (
            f"only the bot to move runs: while one decides, {self.freezer.describe()};"
            f" a decision is charged {self.meter.describe()}"
        )
