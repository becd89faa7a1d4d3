"""Bot processes: line round trips under a deadline, output caps, and killing whole trees."""

from __future__ import annotations

import ctypes
import dataclasses
import os
import sys
import time
from pathlib import Path

import pytest

from arena import runner
from arena.protocol import MAX_LINE_BYTES
from arena.runner import (
    BOT_ENVIRONMENT,
    STDERR_HEAD_BYTES,
    STDERR_TAIL_BYTES,
    BotExited,
    BotProcess,
    BotTimedOut,
    BuiltinLauncher,
    LaunchSpec,
    LineTooLong,
    ScriptLauncher,
    StderrFlood,
    UnsolicitedOutput,
    describe_exit,
    pinned_to_cpu,
)

HOSTILE = Path(__file__).parent / "hostile"
_PR_GET_CHILD_SUBREAPER = 37


def program(source: str) -> LaunchSpec:
    """A bot whose whole program is ``source``."""
    return LaunchSpec((sys.executable, "-I", "-S", "-B", "-c", source), cwd="/")


ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"


def is_gone(pid: int) -> bool:
    """No process, not even a zombie, has this pid."""
    return not Path(f"/proc/{pid}").exists()


def test_a_request_returns_the_reply_line_and_the_time_it_took():
    with BotProcess(program(ECHO)) as bot:
        reply, seconds = bot.request(b'{"type": "decide"}\n', timeout=5)
    assert reply == b'{"type": "decide"}'
    assert 0 < seconds < 5


def test_several_round_trips_keep_their_order():
    with BotProcess(program(ECHO)) as bot:
        replies = [bot.request(f"{n}\n".encode(), timeout=5)[0] for n in range(50)]
    assert replies == [str(n).encode() for n in range(50)]


def test_a_reply_after_the_deadline_is_a_timeout():
    with BotProcess(program("import time; time.sleep(30)")) as bot, pytest.raises(BotTimedOut):
        bot.request(b"hello\n", timeout=0.2)


def test_the_idle_callback_runs_while_a_bot_thinks_and_the_reply_still_arrives(monkeypatch):
    monkeypatch.setattr("arena.runner.IDLE_SECONDS", 0.1)
    thinking = "import sys, time\nsys.stdin.readline(); time.sleep(0.5); print('done', flush=True)"
    calls = []
    with BotProcess(program(thinking)) as bot:
        bot.on_idle = lambda: calls.append(1)
        reply, _ = bot.request(b"go\n", timeout=5)
    assert reply == b"done"
    assert 2 <= len(calls) <= 10


def test_an_idle_callback_does_not_stretch_the_deadline(monkeypatch):
    monkeypatch.setattr("arena.runner.IDLE_SECONDS", 0.05)
    with BotProcess(program("import time; time.sleep(30)")) as bot, pytest.raises(BotTimedOut):
        bot.on_idle = lambda: None
        bot.request(b"hello\n", timeout=0.3)


class UnmeteredControl:
    """A control that neither freezes nor meters: a bot that only sleeps uses no CPU."""

    def freeze(self) -> None: ...

    def thaw(self) -> None: ...

    def cpu_seconds(self) -> float:
        return 0.0

    def waiting_by_task(self) -> dict[int, float]:
        return {}

    def running(self, pid: int) -> None: ...


SLEEPS_THEN_REPLIES = (
    "import sys, time\nfor line in sys.stdin:\n    time.sleep(0.3)\n    print('done', flush=True)\n"
)


def controlled(spec: LaunchSpec) -> LaunchSpec:
    return dataclasses.replace(spec, control=UnmeteredControl())


def test_a_sleep_past_the_decisions_limit_is_charged():
    with BotProcess(controlled(program(SLEEPS_THEN_REPLIES))) as bot:
        reply, charged = bot.request(b"go\n", timeout=5, idle_after=0.1)
    assert reply == b"done"
    # 0.2 s asleep past the limit, read at most IDLE_READING_SECONDS short of the reply.
    assert 0.2 - runner.IDLE_READING_SECONDS - 0.03 <= charged <= 0.35


def test_a_referee_that_reads_the_reply_late_does_not_charge_the_wait_after_it(monkeypatch):
    # The referee takes its first reading at the limit, then gets no CPU for a second: the
    # bot replies meanwhile and sleeps waiting for its next line, which is not its time.
    read = runner.IdleMeter.read

    def starved_after_reading(meter, silent_since):
        read(meter, silent_since)
        time.sleep(1.0)

    monkeypatch.setattr(runner.IdleMeter, "read", starved_after_reading)
    with BotProcess(controlled(program(SLEEPS_THEN_REPLIES))) as bot:
        reply, charged = bot.request(b"go\n", timeout=5, idle_after=0.1)
    assert reply == b"done"
    assert charged < 0.3


def test_an_idle_reading_taken_after_the_bot_wrote_does_not_count(monkeypatch):
    clock = [10.0]
    monkeypatch.setattr(runner, "monotonic", lambda: clock[0])
    meter = runner.IdleMeter(UnmeteredControl(), start_at=10.0)
    meter.read(lambda: True)
    clock[0] = 10.5
    meter.read(lambda: True)
    clock[0] = 14.0
    meter.read(lambda: False)

    assert meter.idle_seconds() == pytest.approx(0.5)
    assert meter.next_reading() == pytest.approx(14.0 + runner.IDLE_READING_SECONDS)


class ReadyToRunAtControl(UnmeteredControl):
    """A control whose bot has a task ready to run, waiting for a CPU, at chosen readings."""

    def __init__(self, ready_at: set[int]) -> None:
        self.ready_at, self.readings = ready_at, 0

    def waiting_by_task(self) -> dict[int, float] | None:
        self.readings += 1
        return None if self.readings in self.ready_at else {}


def test_an_idle_reading_taken_while_the_bot_waits_for_a_cpu_does_not_count(monkeypatch):
    # The kernel counts a wait for a CPU only once it is over: the third reading, taken
    # during one, would charge it as idle time.
    clock = [10.0]
    monkeypatch.setattr(runner, "monotonic", lambda: clock[0])
    meter = runner.IdleMeter(ReadyToRunAtControl(ready_at={1, 3}), start_at=10.0)
    for clock[0] in (10.0, 10.1, 10.3, 10.6):
        meter.read(lambda: True)

    # The first reading that counted (10.1) marks the start, the last one (10.6) the end.
    assert meter.idle_seconds() == pytest.approx(0.5)


def test_a_bot_that_exits_is_seen_as_exited_with_its_status():
    source = "import sys; sys.stdin.readline(); sys.exit(3)"
    with BotProcess(program(source)) as bot, pytest.raises(BotExited, match="exit status 3"):
        bot.request(b"hello\n", timeout=5)


def test_a_line_longer_than_the_cap_is_refused_without_waiting_for_its_end():
    source = "import sys, time; print('x' * (1 << 20), end='', flush=True); time.sleep(9)"
    with BotProcess(program(source)) as bot, pytest.raises(LineTooLong):
        bot.receive(timeout=20)


def test_a_line_just_at_the_cap_is_accepted():
    source = f"import sys; sys.stdout.write('x' * {MAX_LINE_BYTES} + '\\n'); sys.stdout.flush()"
    with BotProcess(program(source)) as bot:
        assert bot.receive(timeout=5) == b"x" * MAX_LINE_BYTES


def test_a_second_line_nobody_asked_for_is_refused_at_the_next_request():
    source = "import sys; input(); print('one'); print('two', flush=True); input()"
    with BotProcess(program(source)) as bot:
        bot.request(b"ask\n", timeout=5)
        with pytest.raises(UnsolicitedOutput, match="two"):
            bot.request(b"ask\n", timeout=5)


def test_the_stderr_tail_keeps_only_the_last_bytes_written():
    source = (
        "import sys\n"
        "sys.stderr.write('a' * 100000 + 'THE END')\n"
        "sys.stderr.flush()\n"
        "print('done', flush=True)\n"
    )
    with BotProcess(program(source)) as bot:
        bot.receive(timeout=5)
        tail = bot.stderr_tail()
    assert tail.endswith("THE END")
    assert len(tail.encode()) == STDERR_TAIL_BYTES


def test_a_bot_writing_a_lot_to_stderr_in_its_turn_is_not_blocked():
    source = (
        "import sys\n"
        "sys.stdin.readline()\n"
        "sys.stderr.write('log line\\n' * 200000)\n"
        "sys.stderr.flush()\n"
        "print('reply', flush=True)\n"
    )
    with BotProcess(program(source), stderr_limit=1 << 30) as bot:
        assert bot.request(b"go\n", timeout=20)[0] == b"reply"


def test_a_bot_flooding_stderr_past_the_match_allowance_is_stopped_at_once():
    source = "import sys\nwhile True:\n    sys.stderr.write('spam' * 4096)\n"
    bot = BotProcess(program(source), stderr_limit=1 << 20)
    with bot, pytest.raises(StderrFlood, match="more than 1048576 bytes"):
        bot.request(b"go\n", timeout=60)


def test_the_stderr_capture_keeps_the_start_and_the_end_and_marks_the_gap():
    source = (
        "import sys\n"
        "sys.stderr.write('FIRST' + 'a' * 100000 + 'LAST')\n"
        "sys.stderr.flush()\n"
        "print('done', flush=True)\n"
    )
    with BotProcess(program(source)) as bot:
        bot.receive(timeout=5)
    capture = bot.stderr_capture()
    assert capture.startswith("FIRST")
    assert capture.endswith("LAST")
    skipped = 100009 - STDERR_HEAD_BYTES - STDERR_TAIL_BYTES
    assert f"[... {skipped} bytes not kept ...]" in capture


def test_a_short_stderr_is_captured_whole_without_a_gap():
    source = (
        "import sys\n"
        "sys.stderr.write('x' * 20000 + 'END')\n"
        "sys.stderr.flush()\n"
        "print('done', flush=True)\n"
        "input()\n"
    )
    bot = BotProcess(program(source))
    assert bot.receive(timeout=30) == b"done"  # stderr is written before this line
    bot.close()
    assert bot.stderr_capture() == "x" * 20000 + "END"


def test_descriptors_for_the_bot_reach_it_and_the_close_hook_runs_once(tmp_path):
    released = []
    read_end, write_end = os.pipe()
    os.write(write_end, b"through the descriptor\n")
    os.close(write_end)
    source = f"import os; print(os.read({read_end}, 100).decode().strip(), flush=True); input()"
    spec = LaunchSpec(
        (sys.executable, "-I", "-S", "-B", "-c", source),
        cwd="/",
        pass_fds=(read_end,),
        on_close=lambda: released.append(True),
    )
    bot = BotProcess(spec)
    assert bot.receive(timeout=5) == b"through the descriptor"
    bot.close()
    bot.close()
    assert released == [True]
    with pytest.raises(OSError):
        os.fstat(read_end)  # the runner closed its copy right after the start


def test_the_close_hook_runs_even_when_the_program_cannot_start():
    released = []
    spec = LaunchSpec(("/nonexistent/python",), cwd="/", on_close=lambda: released.append(1))
    with pytest.raises(BotExited):
        BotProcess(spec)
    assert released == [1]


def test_a_bot_writing_to_stderr_without_end_still_times_out():
    source = "import sys\nwhile True:\n    sys.stderr.write('spam' * 4096)\n"
    with BotProcess(program(source), stderr_limit=1 << 40) as bot, pytest.raises(BotTimedOut):
        bot.request(b"go\n", timeout=0.3)


def test_the_stderr_tail_is_kept_after_the_bot_is_closed():
    source = "import sys; sys.stderr.write('last words'); sys.stderr.flush(); input()"
    bot = BotProcess(program(source))
    with pytest.raises(BotTimedOut):
        bot.receive(timeout=0.3)
    bot.close()
    assert bot.stderr_tail() == "last words"


def test_a_bot_sees_only_the_bot_environment_and_its_token(monkeypatch):
    monkeypatch.setenv("BAIZE_TEST_SECRET", "do-not-leak")
    source = "import os; print(sorted(os.environ), flush=True)"
    with BotProcess(program(source)) as bot:
        names = eval(bot.receive(timeout=5))  # the bot prints a list literal
    assert names == sorted([*BOT_ENVIRONMENT, "BAIZE_BOT_TOKEN"])


def test_closing_kills_the_bot_and_a_child_that_ignores_sigterm(tmp_path):
    pidfile = tmp_path / "pids"
    bot = BotProcess(ScriptLauncher(HOSTILE / "stubborn.py", (str(pidfile),)).launch_spec())
    pids = wait_for_pids(pidfile)
    bot.close()
    assert [pid for pid in pids if not is_gone(pid)] == []


def test_closing_twice_is_harmless():
    bot = BotProcess(program(ECHO))
    bot.close()
    bot.close()
    assert is_gone(bot.pid)


def test_a_program_that_cannot_be_started_is_seen_as_exited():
    spec = LaunchSpec(("/nonexistent/python",), cwd="/")
    with pytest.raises(BotExited, match="could not start"):
        BotProcess(spec)


def test_starting_a_bot_makes_the_runner_a_child_subreaper():
    with BotProcess(program(ECHO)):
        libc = ctypes.CDLL(None, use_errno=True)
        flag = ctypes.c_int(0)
        assert libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0
    assert flag.value == 1


def test_pinning_runs_the_thread_and_its_bots_on_one_cpu_and_then_restores_it():
    before = os.sched_getaffinity(0)
    cpu = min(before)
    with pinned_to_cpu(cpu), BotProcess(program(ECHO)) as bot:
        assert os.sched_getaffinity(0) == {cpu}
        assert os.sched_getaffinity(bot.pid) == {cpu}
    assert os.sched_getaffinity(0) == before


def test_the_builtin_launcher_runs_main_py_isolated_from_its_own_folder():
    spec = BuiltinLauncher("random", seed=5).launch_spec()
    assert spec.argv[1:4] == ("-I", "-S", "-B")
    assert spec.argv[4].endswith("arena/builtin/main.py")
    assert spec.argv[5:] == ("random", "5")
    assert spec.cwd.endswith("arena/builtin")


def test_the_builtin_launcher_refuses_an_unknown_strategy():
    with pytest.raises(ValueError, match="no built-in strategy"):
        BuiltinLauncher("nonexistent")
    with pytest.raises(ValueError, match="not a strategy name"):
        BuiltinLauncher("../main")


def test_the_script_launcher_runs_the_file_from_its_own_folder():
    spec = ScriptLauncher(HOSTILE / "slow.py").launch_spec()
    assert spec.argv[-1] == str((HOSTILE / "slow.py").resolve())
    assert spec.cwd == str(HOSTILE.resolve())


def test_an_exit_by_signal_is_described_by_the_signal_name():
    assert describe_exit(-9) == "killed by SIGKILL"
    assert describe_exit(2) == "exit status 2"


def wait_for_pids(pidfile: Path) -> list[int]:
    """The pids the stubborn bot writes once its whole family runs."""
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if pidfile.exists():
            lines = pidfile.read_text().split()
            if len(lines) == 3:
                return [int(line) for line in lines]
        time.sleep(0.01)
    raise AssertionError("the stubborn bot never wrote its pids")


#: Leaves a grandchild in a session of its own (escaping the process group), which writes its
#: pid to the file named by argv[1] and sleeps; then answers one line.
ESCAPING_GRANDCHILD = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[1] + ".partial", "w") as pidfile:
            pidfile.write(str(os.getpid()))
        os.rename(sys.argv[1] + ".partial", sys.argv[1])
        time.sleep(60)
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.001)
    os._exit(0)
os.wait()
sys.stdout.write("ready\\n")
sys.stdout.flush()
time.sleep(60)
"""


def _grandchild_outlives_close(tmp_path: Path) -> bool:
    pidfile = tmp_path / "grandchild.pid"
    argv = (sys.executable, "-I", "-S", "-B", "-c", ESCAPING_GRANDCHILD, str(pidfile))
    bot = BotProcess(LaunchSpec(argv, cwd="/"))
    assert bot.receive(timeout=10) == b"ready"
    bot.close()
    try:
        os.kill(int(pidfile.read_text()), 0)
    except ProcessLookupError:
        return False
    return True


def test_closing_kills_and_reaps_a_grandchild_that_left_the_session(tmp_path):
    assert not _grandchild_outlives_close(tmp_path)


def test_the_sweep_finds_orphans_where_the_kernel_keeps_no_list_of_children(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "_kernel_lists_children", lambda: False)

    assert not _grandchild_outlives_close(tmp_path)
