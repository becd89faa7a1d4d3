"""Fair play in the sandbox: only the bot to move runs, and a decision is charged its own CPU.

The attack: a bot forks helpers that each call ``setsid``, stops them while it decides and
lets them spin while its opponent thinks, on the one CPU the match is pinned to. Against it
plays an honest bot that spends three quarters of its decision limit computing. Each runs
with the host's slot cgroups (freezer, CPU accounting) and with the fallback by uid that a
host without writable cgroups gets (stops by signal, CPU time from ``/proc``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.referee import Limits, MatchResult, referee_match
from arena.runner import BUILTIN_DIR, BotProcess, pinned_to_cpu
from arena.sandbox.control import waiting_by_task
from arena.sandbox.probe import Sandbox
from games.events import ForfeitReason
from games.rules import get_game
from tests.bots.conftest import stray_sandbox_processes

HOSTILE = Path(__file__).parent / "hostile"
HONEST = Path(__file__).parent / "honest"
#: The honest bot burns 0.75 x 0.2 s of CPU per decision: without fair turns, four helpers
#: on its CPU leave it a fifth of it, and its bank is spent by its second decision. The bank
#: only widens the wall-clock backstop, for a test host busy with other work.
LIMITS = Limits(decision_seconds=0.2, start_seconds=5.0, time_bank_seconds=1.0)
#: For the sleeping bots: no bank.
SLEEP_LIMITS = Limits(decision_seconds=0.5, start_seconds=5.0)

pytestmark = pytest.mark.sandbox


@pytest.fixture(params=["cgroups", "uid"])
def turns(request, sandbox) -> Sandbox:
    """The sandbox with its slot cgroups, and as a host without them would run it."""
    if request.param == "cgroups":
        if sandbox.cgroups is None:
            pytest.skip(f"no slot cgroups on this host: {sandbox.report.turns}")
        return sandbox
    return dataclasses.replace(sandbox, cgroups=None)


def play(sandbox: Sandbox, players: list, target: int, limits: Limits = LIMITS) -> tuple:
    """A pinned Snag match (seed 2) and the seconds each of its decisions was charged."""
    game = get_game("snag")
    charged: list[list[float]] = [[], []]

    def emit(kind: str, payload: dict[str, Any]) -> None:
        if kind == "decision":
            charged[payload["seat"]].append(payload["think_us"] / 1e6)

    state = game.new_match(2, {"target": target})
    cpu = min(os.sched_getaffinity(0))
    result = referee_match(game, state, players, limits=limits, emit=emit, cpu=cpu)
    return result, charged


def thief(sandbox: Sandbox, *args: str):
    return sandbox.launcher(HOSTILE, script="time_thief.py", args=args)


def assert_no_forfeit_by(result: MatchResult, seat: int) -> None:
    assert result.forfeit is None or result.forfeit.seat != seat, result.forfeit


def test_helpers_spinning_on_the_opponents_time_cannot_make_an_honest_bot_forfeit(turns):
    honest = turns.launcher(HONEST, script="cpu_bound.py")
    result, charged = play(turns, [thief(turns, "steal"), honest], target=10)

    assert_no_forfeit_by(result, 1)
    assert len(charged[1]) >= 30, "the honest bot made a few dozen decisions"
    # Each was charged its own CPU alone (most of its limit, no helper's), so its time
    # bank was never touched.
    limit = LIMITS.decision_seconds
    assert all(0.5 * limit < c <= limit for c in charged[1]), f"charged: {charged[1]}"
    assert result.time_bank_left[1] == LIMITS.time_bank_seconds
    assert stray_sandbox_processes() == []


def test_a_bots_helpers_spinning_while_it_sleeps_are_charged_to_it(turns):
    # It sleeps just within the wall-clock backstop while 16 helpers spin on its CPU: only
    # their CPU time, counted against its own clock, can run out.
    players = [thief(turns, "sleep", "2.9", "16"), builtin_random(turns)]
    result, _ = play(turns, players, target=1, limits=SLEEP_LIMITS)

    assert result.forfeit is not None, "the helpers' CPU time was not charged to the bot"
    assert (result.forfeit.seat, result.forfeit.reason) == (0, ForfeitReason.TIMEOUT)
    assert "time ran out" in result.forfeit.detail
    assert stray_sandbox_processes() == []


def test_a_bot_that_sleeps_within_its_decision_limit_is_charged_next_to_nothing(sandbox):
    result, charged = play(sandbox, sleeper(sandbox, "0.5"), target=1, limits=SLEEP_LIMITS)

    assert result.forfeit is None
    assert charged[0][0] < SLEEP_LIMITS.decision_seconds / 2
    assert stray_sandbox_processes() == []


def test_a_bot_that_sleeps_30_s_a_decision_forfeits_on_time_once_its_bank_is_gone(turns):
    limits = Limits(decision_seconds=0.5, start_seconds=5.0, time_bank_seconds=1.0)
    players = [thief(turns, "sleep", str(30 / 1.5), "0", "every"), builtin_random(turns)]
    started = time.monotonic()
    result, _ = play(turns, players, target=1, limits=limits)
    elapsed = time.monotonic() - started

    assert result.forfeit is not None
    assert (result.forfeit.seat, result.forfeit.reason) == (0, ForfeitReason.TIMEOUT)
    assert "time ran out" in result.forfeit.detail and "backstop" not in result.forfeit.detail
    # Asleep past its 0.5 s limit, its 1 s bank goes as the wall clock does: it forfeits
    # about 1.5 s after its limit, in its first decision, long before its 30 s sleep ends.
    assert elapsed < 20, f"the sleeping bot held the match {elapsed:.1f} s"
    assert stray_sandbox_processes() == []


def test_an_honest_bot_beside_cpu_heavy_neighbours_never_forfeits_for_their_load(turns):
    # Two busy processes on the match's CPU leave the honest bot a third of it: each of its
    # decisions (0.75 x 0.2 s of CPU) takes about three times its limit on the wall clock,
    # waiting for the CPU, which is not time it slept.
    cpu = min(os.sched_getaffinity(0))
    spin = "import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True: pass"
    # Each in a session of its own: the kernel's autogroups share a CPU between sessions.
    neighbours = [
        subprocess.Popen([sys.executable, "-c", spin, str(cpu)], start_new_session=True)
        for _ in range(2)
    ]
    try:
        honest = turns.launcher(HONEST, script="cpu_bound.py")
        result, charged = play(turns, [honest, builtin_random(turns)], target=10)
    finally:
        for neighbour in neighbours:
            neighbour.kill()
            neighbour.wait()

    assert result.forfeit is None, result.forfeit
    assert len(charged[0]) >= 10, "the honest bot made its decisions"
    assert all(c <= LIMITS.decision_seconds for c in charged[0]), max(charged[0])
    assert result.time_bank_left[0] == LIMITS.time_bank_seconds
    assert stray_sandbox_processes() == []


def test_a_frozen_bot_and_every_helper_it_detached_use_no_cpu(turns):
    spec = thief(turns, "sleep", "100").launch_spec()
    control = spec.control
    game = get_game("snag")
    observation = game.observation(game.new_match(2, {"target": 1}), 0)
    with BotProcess(spec) as bot:
        bot.send(b'{"type": "start", "game": "snag", "seat": 0, "options": {}}\n', timeout=5)
        bot.receive(timeout=10)
        request = {"type": "decide", "request": 1, "observation": observation, "time_left": 9}
        bot.send(json.dumps(request).encode() + b"\n", timeout=5)
        while control.cpu_seconds() < 0.2:  # its helpers are up and spinning
            time.sleep(0.01)
        bot.freeze()
        frozen_at = control.cpu_seconds()
        time.sleep(0.3)
        used_frozen = control.cpu_seconds() - frozen_at
        bot.thaw()
        thawed_at = control.cpu_seconds()
        time.sleep(0.3)
        used_thawed = control.cpu_seconds() - thawed_at

    tick = 0.011  # the uid fallback reads CPU time in clock ticks of 10 ms
    assert used_frozen <= tick, f"frozen, it still used {used_frozen:.3f} s"
    assert used_thawed > 10 * tick, "thawed, its helpers spin again"
    assert stray_sandbox_processes() == []


def sleeper(sandbox: Sandbox, factor: str) -> list:
    """A bot sleeping ``factor`` times its allowed time at its first decision, no helper."""
    return [thief(sandbox, "sleep", factor, "0"), builtin_random(sandbox)]


def builtin_random(sandbox: Sandbox):
    return sandbox.launcher(BUILTIN_DIR, script="main.py", args=("random", "7"))


def freezer_cgroup(pid: int) -> str:
    """The freezer cgroup of process ``pid``, as ``/proc/PID/cgroup`` names it (cgroup v1)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "freezer" in controllers.split(","):
            return path
    raise LookupError(f"process {pid} is in no freezer cgroup")


def task_state(pid: int) -> str:
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return stat[stat.rfind(b")") + 2 :][:1].decode()


def test_the_waits_for_a_cpu_are_read_only_while_no_task_is_ready_to_run():
    spinning = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    sleeping = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # On a busy machine an interpreter takes a while to start and reach its sleep.
        deadline = time.monotonic() + 30
        while task_state(sleeping.pid) != "S" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert waiting_by_task([spinning.pid]) is None
        assert waiting_by_task([sleeping.pid, spinning.pid]) is None
        assert set(waiting_by_task([sleeping.pid])) == {sleeping.pid}
    finally:
        for process in (spinning, sleeping):
            process.kill()
            process.wait()


def test_once_the_bot_speaks_only_its_own_processes_are_left_in_its_freezer(sandbox):
    if sandbox.cgroups is None or sandbox.cgroups.version != 1:
        pytest.skip("the launcher leaves the freezer on cgroup v1 hosts only")
    with BotProcess(thief(sandbox, "sleep", "100").launch_spec()) as bot:
        bot.send(b'{"type": "start", "game": "snag", "seat": 0, "options": {}}\n', timeout=5)
        bot.receive(timeout=10)
        children = Path(f"/proc/{bot.pid}/task/{bot.pid}/children").read_text().split()
        assert len(children) == 1, "bubblewrap's monitor starts the bot itself, no init"
        bot_cgroup = freezer_cgroup(int(children[0]))
        monitor_cgroup = freezer_cgroup(bot.pid)
    assert bot_cgroup.startswith(monitor_cgroup + "/slot-")
    assert stray_sandbox_processes() == []


def test_past_the_matchs_wall_clock_cap_the_slower_bot_forfeits(sandbox):
    # It sleeps 0.4 s of its 0.5 s at every decision: never past its limit, but the match
    # may last 1.5 s in all.
    limits = dataclasses.replace(SLEEP_LIMITS, match_seconds=1.5)
    players = [thief(sandbox, "sleep", "0.8", "0", "every"), builtin_random(sandbox)]
    result, charged = play(sandbox, players, target=5, limits=limits)

    assert result.forfeit is not None and len(charged[0]) >= 2
    assert (result.forfeit.seat, result.forfeit.reason) == (0, ForfeitReason.TIMEOUT)
    assert "wall-clock cap of 1.5 s" in result.forfeit.detail
    assert stray_sandbox_processes() == []


def test_a_bot_held_off_the_cpu_after_its_end_keeps_the_line_it_then_writes(turns):
    """A busy machine only makes the wait after an ``end`` longer: the bot's grace is its own
    CPU time (``END_GRACE_SECONDS``), not the wall clock. Four busy processes on its CPU for
    0.6 s leave it a fifth of it: its 150 ms of pondering take about 0.7 s on the wall clock
    (0.8 to 1.0 s with a test suite and an image build beside it), where a grace of half a
    second of wall clock cut its line off in every run."""
    hold = 0.6
    cpu = min(os.sched_getaffinity(0))
    spin = (
        "import os, sys, time; os.sched_setaffinity(0, {int(sys.argv[1])})\n"
        "until = time.monotonic() + float(sys.argv[2])\n"
        "while time.monotonic() < until: pass"
    )
    launcher = turns.launcher(HONEST, script="series_recorder.py", args=("series", "ponder", "150"))
    start = {"type": "start", "game": "snag", "seat": 0, "options": {}}
    start["series"] = {"match": 1, "matches": 2}
    with pinned_to_cpu(cpu):
        bot = BotProcess(launcher.launch_spec())
    with bot:
        bot.send(json.dumps(start).encode() + b"\n", timeout=5)
        bot.receive(timeout=10)
        # Each in a session of its own: the kernel's autogroups share a CPU between sessions.
        neighbours = [
            subprocess.Popen(
                [sys.executable, "-c", spin, str(cpu), str(hold)], start_new_session=True
            )
            for _ in range(4)
        ]
        try:
            time.sleep(0.05)  # they are up and spinning
            sent = time.monotonic()
            bot.send(b'{"type": "end", "scores": [1, 0]}\n', timeout=5)
            bot.settle()
            settled = time.monotonic() - sent
        finally:
            for neighbour in neighbours:
                neighbour.kill()
                neighbour.wait()
        stderr = bot.stderr_capture()

    assert "end match=1" in stderr, f"settled after {settled:.2f} s: {stderr!r}"
    assert stray_sandbox_processes() == []
