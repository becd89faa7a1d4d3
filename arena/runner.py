"""Bot processes: how a bot is launched, talked to line by line under a deadline, and killed.

A launcher turns "a bot" into a ``LaunchSpec`` (argv, cwd, env). The plain launchers here
run ``python -I -S -B`` on a file; the hardened sandbox (``docs/sandbox.md``: per-slot uid,
rlimits, bubblewrap, seccomp) is another launcher whose argv wraps the same command, so the
referee never changes.

``BotProcess`` owns one running bot: raw pipe file descriptors, one ``poll`` per wait and its
own line buffer (no thread, no Python file buffering), a cap on the reply line, a capped tail
of stderr drained while waiting, and on close SIGKILL to the whole process group at once
(``docs/sandbox.md``, trap 10), a reap, and a sweep of orphans the bot left behind. The runner
process makes itself a child subreaper so that such orphans are re-parented to it and can be
found.
Processes are started without ``preexec_fn`` so ``subprocess`` can use ``vfork`` (trap 3).

A launcher may hand over a ``ProcessControl`` (the sandbox does, per slot): the bot can then
be frozen whole while it is not its turn, and a request is charged the CPU time all its
processes used, under a wall-clock backstop, instead of the wall-clock time (``request``).
A bot without one is trusted (built-in bots, local scripts) and timed by the wall clock.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import math
import os
import secrets
import select
import signal
import subprocess
import sys
import termios
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic
from typing import Protocol

from .protocol import MAX_LINE_BYTES

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
BUILTIN_MAIN = BUILTIN_DIR / "main.py"
#: The whole environment a bot gets: nothing of the runner's (secrets, database URLs) leaks.
BOT_ENVIRONMENT: Mapping[str, str] = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
#: Set in every bot's environment with a per-process value, to recognise its descendants.
TOKEN_VARIABLE = "BAIZE_BOT_TOKEN"
STDERR_TAIL_BYTES = 8 * 1024
#: How much of the start of a bot's stderr is kept beside the tail, for its author.
STDERR_HEAD_BYTES = 16 * 1024
#: A bot writing more than this to stderr in one match is flooding, not logging: it forfeits.
STDERR_LIMIT_BYTES = 1 << 20
#: After its ``end`` (or the end of its input), a bot has this long to write its last lines
#: for the match that ended and wait for more input, or exit (``BotProcess.settle``): of its
#: CPU time where it is sandboxed (at least as long and at most ``WALL_BACKSTOP_FACTOR`` times
#: as long on the wall clock), of the wall clock otherwise. It is done as soon as it does.
END_GRACE_SECONDS = 0.5
#: How often, once the wall clock passed the grace, the runner reads a bot's CPU time.
_SETTLE_CPU_POLL_SECONDS = 0.005
#: How often, meanwhile, the runner looks whether it has.
_SETTLE_POLL_SECONDS = 0.0005
#: While a bot thinks, its ``on_idle`` callback runs about this often (seconds).
IDLE_SECONDS = 1.0
_READ_CHUNK = 64 * 1024
_MAX_STDERR_CHUNKS_PER_DRAIN = 16
_PR_SET_CHILD_SUBREAPER = 36
#: Each pass reaps one generation of re-parented descendants; more means a fork bomb in flight.
_MAX_SWEEP_PASSES = 64
#: A bot charged CPU time may take this many times its allowed time by the wall clock: the
#: backstop for one that sleeps or waits instead of computing (docs/bot-protocol.md).
WALL_BACKSTOP_FACTOR = 3.0
#: Why a sandboxed bot timed out on its charge (``BotProcess.request``).
OUT_OF_TIME = (
    "the bot did not reply before its time ran out"
    " (its CPU time, and its time asleep past the decision's limit)"
)
#: The shortest wait between two readings of a thinking bot's CPU time.
_CPU_SLICE_SECONDS = 0.002
#: Past its decision's limit, a bot's time asleep is read this often (``IdleMeter``): a sleep
#: that ends in a reply is charged at most this much short.
IDLE_READING_SECONDS = 0.05


class ProcessControl(Protocol):
    """Every process one bot runs, however it forked or detached: its turn and its CPU time."""

    def freeze(self) -> None:
        """Stop all of them until ``thaw``."""

    def thaw(self) -> None: ...

    def cpu_seconds(self) -> float:
        """CPU time used so far, by all of them, those that ended included; only differences
        between two readings mean anything."""

    def waiting_by_task(self) -> dict[int, float] | None:
        """Seconds each of their live tasks (threads) spent so far ready to run but waiting
        for a CPU (the kernel's ``schedstat``); only differences mean anything. ``None`` while
        one of them is ready to run: its wait so far is not counted yet."""

    def running(self, pid: int) -> None:
        """The bot wrote its first line, so the launch is done: ``pid`` is the process the
        runner started (the sandbox's own outermost process, which the bot cannot reach)."""


class IdleMeter:
    """The time a bot spends neither running nor waiting for a CPU (asleep, blocked on
    something), counted from ``start_at`` (``monotonic``) on: past a decision's limit, it is
    charged as CPU time is. Nothing is read before ``start_at``, so a decision that ends
    within its limit costs nothing more. The time a task waited for a CPU is lost with it if
    it ends meanwhile: that only charges a bot more, never less.

    Only readings taken before the bot wrote anything count (``read``): once its reply is in
    the pipe the bot sleeps waiting for its next line, and a referee starved of CPU reads
    the reply late. So a sleep is charged up to the last reading before the reply, at most
    ``IDLE_READING_SECONDS`` short of it while the referee keeps its pace. Nor do readings
    taken while one of its tasks is ready to run count: a wait for a CPU not yet over is
    not in the kernel's figures, and would be charged as idle time. Such a bot is not
    asleep; what it runs is charged as CPU time.
    """

    def __init__(self, control: ProcessControl, start_at: float) -> None:
        self._control = control
        self._start_at = start_at
        self._mark: tuple[float, float, dict[int, float]] | None = None
        self._read_at: float | None = None
        self._idle = 0.0

    def next_reading(self) -> float:
        """When the meter must be read next: at ``start_at``, then every
        ``IDLE_READING_SECONDS``."""
        return self._start_at if self._read_at is None else self._read_at + IDLE_READING_SECONDS

    def read(self, silent_since: Callable[[], bool]) -> None:
        """Take a reading (none before ``start_at``); it counts only if ``silent_since()``,
        asked after it, says the bot has written nothing yet."""
        now = monotonic()
        if now < self._start_at:
            return
        cpu, waiting = self._control.cpu_seconds(), self._control.waiting_by_task()
        self._read_at = now
        if waiting is None or not silent_since():
            return
        if self._mark is None:
            self._mark = (now, cpu, waiting)
            return
        wall_then, cpu_then, waiting_then = self._mark
        waited = sum(seconds - waiting_then.get(task, 0.0) for task, seconds in waiting.items())
        self._idle = max(0.0, (now - wall_then) - (cpu - cpu_then) - waited)

    def idle_seconds(self) -> float:
        """Seconds idle between the first and the last reading that counted (each reading
        stands alone: the CPU time read by uid moves in ticks, and a maximum of readings
        would keep their noise)."""
        return self._idle


@dataclass(frozen=True)
class LaunchSpec:
    """Everything needed to start one bot process."""

    argv: tuple[str, ...]
    cwd: str
    env: Mapping[str, str] = field(default_factory=lambda: dict(BOT_ENVIRONMENT))
    #: Descriptors the bot's command needs (the sandbox's seccomp filter); the runner closes
    #: its own copies once the process started.
    pass_fds: tuple[int, ...] = ()
    #: Called once the bot and everything it started is dead and reaped: releases what the
    #: launcher reserved for this start (the sandbox's uid slot).
    on_close: Callable[[], None] | None = None
    #: Freezes and meters everything the bot runs (the sandbox's slot); ``None``: a trusted
    #: bot, never frozen, timed by the wall clock.
    control: ProcessControl | None = None
    #: Given the pid of the started process, empties the folders private to the bot that it
    #: can write (the sandbox's ``/tmp`` and ``/dev/shm``); ``OSError`` if it cannot. Called
    #: between two matches of a series. ``None``: a trusted bot, which has no private folder.
    empty_files: Callable[[int], None] | None = None


class BotLauncher(Protocol):
    def launch_spec(self) -> LaunchSpec: ...


def python_command(script: Path | str, *args: str) -> tuple[str, ...]:
    """Run ``script`` with this interpreter, isolated: no site, no user paths, no .pyc writes."""
    return (sys.executable, "-I", "-S", "-B", str(script), *args)


@dataclass(frozen=True)
class BuiltinLauncher:
    """A built-in bot: ``arena/builtin/main.py STRATEGY [SEED]``."""

    strategy: str
    seed: int | None = None

    def __post_init__(self) -> None:
        if not self.strategy.isidentifier() or self.strategy.startswith("_"):
            raise ValueError(f"not a strategy name: {self.strategy!r}")
        if not (BUILTIN_DIR / "strategies" / f"{self.strategy}.py").is_file():
            raise ValueError(f"no built-in strategy named {self.strategy!r}")

    def launch_spec(self) -> LaunchSpec:
        seed = () if self.seed is None else (str(self.seed),)
        return LaunchSpec(python_command(BUILTIN_MAIN, self.strategy, *seed), str(BUILTIN_DIR))

    def __str__(self) -> str:
        return f"builtin:{self.strategy}"


@dataclass(frozen=True)
class ScriptLauncher:
    """A bot that is one local Python file, run from its own folder."""

    path: Path
    args: tuple[str, ...] = ()

    def launch_spec(self) -> LaunchSpec:
        path = Path(self.path).resolve()
        return LaunchSpec(python_command(path, *self.args), str(path.parent))

    def __str__(self) -> str:
        return f"script:{self.path}"


class BotError(Exception):
    """A bot process that did not do what the runner needed."""


class BotTimedOut(BotError):
    pass


class BotExited(BotError):
    """The bot could not be started, closed its output, or stopped reading its input."""


class LineTooLong(BotError):
    pass


class UnsolicitedOutput(BotError):
    """The bot wrote more than the one line it was asked for."""


class StderrFlood(BotError):
    """The bot wrote more to stderr than a match allows."""


class BotProcess:
    """One running bot. Not thread-safe: one referee thread talks to it."""

    def __init__(self, spec: LaunchSpec, *, stderr_limit: int = STDERR_LIMIT_BYTES) -> None:
        become_child_subreaper()
        self._token = secrets.token_hex(8)
        self._on_close = spec.on_close
        self._control = spec.control
        self._empty_files = spec.empty_files
        self._frozen = False
        #: Whether the bot wrote its first line (its control was told, ``ProcessControl``).
        self._running = False
        #: The CPU time read when the bot last wrote a line: a request is charged from there.
        self._cpu_mark = 0.0 if spec.control is None else spec.control.cpu_seconds()
        #: The bot inherits the runner's CPUs and cannot widen them: its CPU time grows at
        #: most this many times as fast as the wall clock.
        self._cpus = len(os.sched_getaffinity(0))
        try:
            self._process = self._spawn(spec)
        except OSError as error:
            self._release()
            raise BotExited(f"could not start {spec.argv[0]!r}: {error}") from None
        finally:
            for fd in spec.pass_fds:
                os.close(fd)
        self.pid = self._process.pid
        self._stdin = self._process.stdin.fileno()
        self._stdout = self._process.stdout.fileno()
        self._stderr: int | None = self._process.stderr.fileno()
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        self._poller = select.poll()
        self._poller.register(self._stdout, select.POLLIN)
        self._poller.register(self._stderr, select.POLLIN)
        self._stdout_poller = select.poll()
        self._stdout_poller.register(self._stdout, select.POLLIN)
        self._buffer = bytearray()
        self._stderr_head = b""
        self._stderr_tail = b""
        self._stderr_bytes = 0
        self._stderr_limit = stderr_limit
        #: Called about every ``IDLE_SECONDS`` while waiting for the bot's reply.
        self.on_idle: Callable[[], None] | None = None
        self._idle_at = 0.0
        self._closed = False

    def _spawn(self, spec: LaunchSpec) -> subprocess.Popen:
        return subprocess.Popen(
            spec.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            cwd=spec.cwd,
            env={**spec.env, TOKEN_VARIABLE: self._token},
            close_fds=True,
            pass_fds=spec.pass_fds,
            start_new_session=True,
        )

    def freeze(self) -> None:
        """Stop every process of the bot until it is thawed or talked to; a trusted bot
        without a control keeps running."""
        if self._control is not None and not self._frozen and not self._closed:
            self._control.freeze()
            self._frozen = True

    def thaw(self) -> None:
        if self._frozen:
            self._frozen = False
            self._control.thaw()

    def empty_files(self) -> None:
        """Freeze the bot and empty the folders private to it (``LaunchSpec.empty_files``):
        the next match of a series starts without the files of the last. ``OSError`` if
        they could not be emptied."""
        if self._empty_files is not None:
            self.freeze()
            self._empty_files(self.pid)

    def send(self, line: bytes, timeout: float) -> None:
        """Write ``line`` whole within ``timeout`` seconds (thawing the bot: it must read it)."""
        self._write(line, monotonic() + timeout)

    def request(
        self, line: bytes, timeout: float, *, idle_after: float | None = None
    ) -> tuple[bytes, float]:
        """Send ``line`` and return the bot's one-line reply and the seconds charged for it.

        A trusted bot is charged the wall-clock time from just before the write to the end
        of the reply line, and times out past ``timeout``. A bot with a control is charged
        the CPU time all its processes used since it last wrote a line (its ``ready`` or its
        previous reply: what it ran after that, until it was frozen, counts here), and, once
        ``idle_after`` seconds have passed on the wall clock, the time it then spends neither
        running nor waiting for a CPU (asleep, blocked): sleeping is time, another bot's load
        is not. It times out once that charge passes ``timeout`` or the wall clock passes
        ``WALL_BACKSTOP_FACTOR`` times ``timeout``.
        """
        if self._buffer:
            raise UnsolicitedOutput(f"the bot wrote output nobody asked for: {self._excerpt()}")
        started = monotonic()
        if self._control is None:
            deadline = started + timeout
            self._write(line, deadline)
            reply = self._read_line(deadline)
            return reply, monotonic() - started
        deadline = started + WALL_BACKSTOP_FACTOR * timeout
        self._write(line, deadline)
        idle = None if idle_after is None else IdleMeter(self._control, started + idle_after)
        reply = self._read_line(deadline, cpu_limit=timeout, idle=idle)
        charged = self._charge_cpu() + (0.0 if idle is None else idle.idle_seconds())
        if charged > timeout:  # it ran out between two readings, then replied
            raise BotTimedOut(OUT_OF_TIME)
        return reply, charged

    def receive(self, timeout: float) -> bytes:
        """The next line the bot writes within ``timeout`` seconds of the wall clock."""
        self.thaw()
        line = self._read_line(monotonic() + timeout)
        if self._control is not None:
            self._charge_cpu()  # what the bot used up to this line is not a decision's
        return line

    def _charge_cpu(self) -> float:
        """The CPU seconds used since the mark; the mark moves to now."""
        now = self._control.cpu_seconds()
        # A process reaped outside the slot takes its time along (the uid fallback): the
        # reading may fall, never the charge.
        used, self._cpu_mark = max(0.0, now - self._cpu_mark), now
        return used

    def stderr_tail(self) -> str:
        """The last ``STDERR_TAIL_BYTES`` the bot wrote to stderr so far."""
        self._drain_stderr()
        return self._stderr_tail.decode("utf-8", errors="replace")

    def stderr_capture(self) -> str:
        """What the bot wrote to stderr, capped: its start and its end, with the gap marked."""
        self._drain_stderr()
        skipped = self._stderr_bytes - len(self._stderr_head) - len(self._stderr_tail)
        if skipped <= 0:
            kept = self._stderr_head + self._stderr_tail[-skipped:]
            return kept.decode("utf-8", errors="replace")
        gap = f"\n[... {skipped} bytes not kept ...]\n".encode()
        return (self._stderr_head + gap + self._stderr_tail).decode("utf-8", errors="replace")

    def settle(self, grace: float = END_GRACE_SECONDS) -> None:
        """Let the bot finish with what it was last sent (its ``end``, or the end of its
        input) before its stderr is read for the match: return once it has read all its
        input and waits with none of its tasks running or ready to run (its next read of
        input, typically), everything it wrote to stderr read; or once it exited; or once it
        used ``grace`` seconds (``END_GRACE_SECONDS``). A sandboxed bot's grace is its CPU
        time, as its decisions' is, so a busy machine that holds it off the CPU only makes the
        wait longer (up to ``WALL_BACKSTOP_FACTOR`` times the grace): what a bot writes before
        it next waits is the match's. A trusted bot's is the wall clock."""
        self.thaw()
        started = monotonic()
        backstop = WALL_BACKSTOP_FACTOR if self._control is not None else 1.0
        deadline = started + backstop * grace
        cpu_at_start = None if self._control is None else self._control.cpu_seconds()
        cpu_read_at = math.inf if self._control is None else started + grace
        while (now := monotonic()) < deadline and self._stderr is not None:
            if select.select([self._stderr], [], [], min(_SETTLE_POLL_SECONDS, deadline - now))[0]:
                self._drain_stderr()
            elif self._process.poll() is not None or (self._input_read() and self._asleep()):
                break
            elif now >= cpu_read_at:
                # Only a bot still busy after its grace on the wall clock is asked its CPU
                # time: the uid fallback's reading walks /proc.
                if self._control.cpu_seconds() - cpu_at_start >= grace:
                    break
                cpu_read_at = now + _SETTLE_CPU_POLL_SECONDS
        # Written before it fell asleep or exited, so in the pipe now.
        self._drain_stderr()

    def finish(self, grace: float = END_GRACE_SECONDS) -> None:
        """End the bot as the protocol ends it: its input ends (a bot that plays series exits
        on reading to the end), it writes its last lines and exits within ``grace`` seconds
        (``settle``), and is closed (killed and reaped, whatever it left running)."""
        if not self._closed:
            with contextlib.suppress(OSError):
                self.close_input()
            self.settle(grace)
        self.close()

    def _input_read(self) -> bool:
        """Whether the bot has read everything written to it (or its input is closed)."""
        if self._process.stdin.closed:
            return True
        unread = bytearray(4)
        fcntl.ioctl(self._stdin, termios.FIONREAD, unread)
        return int.from_bytes(unread, sys.byteorder) == 0

    def _asleep(self) -> bool:
        """Whether none of the bot's tasks is running or ready to run: its control's tasks
        (everything it runs in the sandbox), or a trusted bot's own threads."""
        if self._control is not None:
            return self._control.waiting_by_task() is not None
        try:
            tasks = os.listdir(f"/proc/{self.pid}/task")
        except OSError:
            return True  # gone
        return not any(_task_state(f"/proc/{self.pid}/task/{task}") == b"R" for task in tasks)

    def stderr_restart(self) -> None:
        """Start a new capture (and a new stderr allowance): the next match of a series.
        What the pipe still holds is read into the new one."""
        self._stderr_head = self._stderr_tail = b""
        self._stderr_bytes = 0

    def close_input(self) -> None:
        """End the bot's input: a bot that plays series exits when it reads to the end."""
        self.thaw()
        self._process.stdin.close()

    @property
    def running(self) -> bool:
        """Whether the bot has neither been closed nor exited by itself."""
        return not self._closed and self._process.poll() is None

    def close(self) -> None:
        """Kill the bot and everything it started, reap them, release the pipes. Idempotent."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.thaw()  # a frozen task acts on its SIGKILL only once thawed (cgroup v1)
        self._process.wait()
        sweep_orphans(session=self.pid, token=self._token)
        self._release()
        self._drain_stderr()
        self._stop_reading_stderr()
        for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
            stream.close()

    def _release(self) -> None:
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _write(self, line: bytes, deadline: float) -> None:
        """Write ``line`` and thaw the bot: it must read it.

        The line goes into the pipe first. A bot thawed after that finds it there, where one
        thawed before it would wake to an empty pipe, sleep again and be woken by the line:
        a sleep and a wake-up of its process more at every change of turn.
        """
        try:
            written = os.write(self._stdin, line)
        except BlockingIOError:
            written = 0
        except BrokenPipeError:
            self.thaw()
            raise BotExited(f"the bot stopped reading its input ({self._exit_status()})") from None
        self.thaw()
        if written < len(line):
            self._write_slowly(memoryview(line)[written:], deadline)

    def _write_slowly(self, rest: memoryview, deadline: float) -> None:
        writable = select.poll()
        writable.register(self._stdin, select.POLLOUT)
        while rest:
            if not writable.poll(_milliseconds_until(deadline)):
                raise BotTimedOut("the bot did not read its input before the deadline")
            try:
                rest = rest[os.write(self._stdin, rest) :]
            except BlockingIOError:
                continue
            except BrokenPipeError:
                raise BotExited(
                    f"the bot stopped reading its input ({self._exit_status()})"
                ) from None

    def _read_line(
        self, deadline: float, cpu_limit: float | None = None, idle: IdleMeter | None = None
    ) -> bytes:
        buffer = self._buffer
        newline = buffer.find(b"\n")
        self._idle_at = monotonic() + IDLE_SECONDS
        # The CPU time is read only when a wait ends without the line: a reply that comes
        # within the first wait is checked against its charge (``request``).
        cpu_left = cpu_limit
        while newline < 0:
            if len(buffer) > MAX_LINE_BYTES:
                raise LineTooLong(f"the bot wrote a line longer than {MAX_LINE_BYTES} bytes")
            wake = deadline if idle is None else min(deadline, idle.next_reading())
            self._wait_for_output(wake, cpu_limit, cpu_left, deadline)
            newline = buffer.find(b"\n")
            if cpu_limit is not None and newline < 0:
                cpu_left = cpu_limit - (self._control.cpu_seconds() - self._cpu_mark)
                if idle is not None:
                    idle.read(self._stdout_silent)
                    cpu_left -= idle.idle_seconds()
        if newline > MAX_LINE_BYTES:
            raise LineTooLong(f"the bot wrote a line longer than {MAX_LINE_BYTES} bytes")
        line = bytes(buffer[:newline])
        del buffer[: newline + 1]
        if not self._running:
            self._running = True
            if self._control is not None:
                self._control.running(self.pid)
        return line

    def _stdout_silent(self) -> bool:
        """Whether the bot's stdout holds nothing unread (nor was closed)."""
        return not self._stdout_poller.poll(0)

    def _wait_for_output(
        self,
        until: float,
        cpu_limit: float | None,
        cpu_left: float | None,
        deadline: float | None = None,
    ) -> None:
        """Wait for output until ``until`` (at most the ``deadline``), or until ``cpu_left``
        (the time left of ``cpu_limit``, at most) could be spent, and read what came."""
        now = monotonic()
        deadline = until if deadline is None else deadline
        remaining = until - now
        if deadline - now <= 0:
            if cpu_limit is None:
                raise BotTimedOut("the bot did not reply before the deadline")
            raise BotTimedOut(
                "the bot did not reply within the wall-clock backstop"
                f" ({WALL_BACKSTOP_FACTOR:g} times its {cpu_limit:g} s of CPU time)"
            )
        wait = max(0.0, remaining)
        if cpu_left is not None:
            if cpu_left <= 0:
                raise BotTimedOut(OUT_OF_TIME)
            # CPU time grows at most ``cpus`` times as fast as the wall clock, and time asleep
            # (``IdleMeter``) at most as fast.
            wait = min(wait, max(cpu_left / (self._cpus + 1), _CPU_SLICE_SECONDS))
        if self.on_idle is not None:
            wait = min(wait, max(0.0, self._idle_at - now))
        ready = self._poller.poll(math.ceil(wait * 1000))
        if not ready and self.on_idle is not None and monotonic() >= self._idle_at:
            self._idle_at = monotonic() + IDLE_SECONDS
            self.on_idle()
        for fd, _ in ready:
            if fd != self._stdout:
                self._drain_stderr()
                if self._stderr_bytes > self._stderr_limit:
                    raise StderrFlood(
                        f"the bot wrote more than {self._stderr_limit} bytes to stderr"
                    )
                continue
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                raise BotExited(f"the bot closed its output ({self._exit_status()})")
            self._buffer += chunk

    def _drain_stderr(self) -> None:
        """Read what stderr holds now; bounded, so a bot writing non-stop cannot stall us."""
        for _ in range(_MAX_STDERR_CHUNKS_PER_DRAIN):
            if self._stderr is None:
                return
            try:
                chunk = os.read(self._stderr, _READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                self._stop_reading_stderr()
                return
            self._keep_stderr(chunk)

    def _keep_stderr(self, chunk: bytes) -> None:
        room = STDERR_HEAD_BYTES - len(self._stderr_head)
        if room > 0:
            self._stderr_head += chunk[:room]
        self._stderr_bytes += len(chunk)
        self._stderr_tail = (self._stderr_tail + chunk)[-STDERR_TAIL_BYTES:]

    def _stop_reading_stderr(self) -> None:
        if self._stderr is not None:
            self._poller.unregister(self._stderr)
            self._stderr = None

    def _exit_status(self) -> str:
        """How the bot ended, waiting a moment for a bot that is on its way out."""
        try:
            code = self._process.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            return "it is still running"
        return describe_exit(code)

    def _excerpt(self) -> str:
        return repr(bytes(self._buffer[:200]))


def describe_exit(returncode: int) -> str:
    if returncode >= 0:
        return f"exit status {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    return f"killed by {name}"


def _milliseconds_until(deadline: float) -> int:
    return max(0, math.ceil((deadline - monotonic()) * 1000))


_subreaper_pid: int | None = None


def become_child_subreaper() -> bool:
    """Make this process adopt its orphaned descendants (best effort; Linux only)."""
    global _subreaper_pid
    # The flag is not inherited across fork: a forked worker must set it again.
    if _subreaper_pid == os.getpid():
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    _subreaper_pid = os.getpid()
    return True


def sweep_orphans(session: int, token: str) -> None:
    """Kill and reap the descendants of one bot that were re-parented to this process.

    A descendant is recognised by the bot's session (it ran with ``start_new_session``) or,
    having called ``setsid`` itself, by the bot's token in its environment. Each pass reaps
    one generation; a reaped process's children are re-parented before it can be reaped.
    A descendant that clears its environment and calls ``setsid`` escapes this sweep: only
    the sandbox's uid sweep or PID namespace catches it (``docs/sandbox.md``, trap 5).
    """
    marker = f"{TOKEN_VARIABLE}={token}".encode()
    for _ in range(_MAX_SWEEP_PASSES):
        found = [
            pid
            for pid, sid in _children_with_session()
            if _is_descendant(pid, sid, session, marker)
        ]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _is_descendant(pid: int, sid: int, session: int, marker: bytes) -> bool:
    if sid == session:
        return True
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return marker in environ.read().split(b"\0")
    except OSError:
        return False


def _children_with_session() -> Iterator[tuple[int, int]]:
    """``(pid, session id)`` of every child of this process, read from ``/proc``."""
    me = os.getpid()
    for pid in _child_pids():
        try:
            fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        except OSError:
            continue
        try:
            stat = os.read(fd, 512)
        except OSError:
            continue
        finally:
            os.close(fd)
        # The command name may hold spaces and parentheses: fields start after the last ")".
        fields = stat[stat.rfind(b")") + 2 :].split(b" ", 4)
        if int(fields[1]) == me:
            yield pid, int(fields[3])


def _child_pids() -> list[int]:
    """The pids that may be children of this process: the kernel's list of each thread's
    children where it keeps one (``CONFIG_PROC_CHILDREN``), else every process.

    Reading a few lists costs a hundredth of reading every process's ``stat``, which was
    most of a sandboxed match's closing time. The caller checks the parent either way.
    """
    if not _kernel_lists_children():
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    return [
        int(pid)
        for task in os.listdir("/proc/self/task")
        for pid in _read_small(f"/proc/self/task/{task}/children").split()
    ]


def _kernel_lists_children() -> bool:
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _task_state(task_dir: str) -> bytes:
    """A task's state letter (``R``: running or ready to run; ``S``: asleep; ...), read from
    its ``stat``; empty if it ended."""
    try:
        stat = _read_small(f"{task_dir}/stat")
    except OSError:
        return b""
    # The command name may hold spaces and parentheses: fields start after the last ")".
    return stat[stat.rfind(b")") + 2 :][:1]


def _read_small(path: str) -> bytes:
    """A whole small ``/proc`` file; empty if its task ended meanwhile."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return b""
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


@contextlib.contextmanager
def pinned_to_cpu(cpu: int | None) -> Iterator[None]:
    """Run the calling thread, and every process it starts meanwhile, on one CPU.

    A request and reply between processes sharing a CPU costs ~12 µs instead of ~85 µs
    (``docs/sandbox.md``, "Measured before the design"). ``None`` leaves the affinity alone.
    """
    if cpu is None:
        yield
        return
    previous = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, previous)
