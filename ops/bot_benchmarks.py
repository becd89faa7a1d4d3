"""Measurements of the bot runner: functions that return numbers and print nothing.

The round-trip figures compare a bare JSON-lines exchange over pipes (``os.write`` then a
blocking ``os.read``) with the same exchange through ``BotProcess.request`` and the same
trivial echo bot, measured in one run with the runner and the bot pinned to one CPU, so
their ratio is the runner's own overhead. ``docs/sandbox.md`` has the figures the sandbox's
design started from.
"""

from __future__ import annotations

import enum
import multiprocessing
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter, perf_counter_ns
from typing import Any

from arena.bot_code import store_code
from arena.builds import BuildLimits, build_in_sandbox
from arena.builtin.strategies import load as load_strategy
from arena.protocol import decide_message, encode, start_message
from arena.referee import Limits, MatchResult, Player, StrategyPlayer, referee_match
from arena.runner import (
    BUILTIN_DIR,
    BotLauncher,
    BotProcess,
    BuiltinLauncher,
    LaunchSpec,
    pinned_to_cpu,
)
from arena.runtimes import runtime_named
from arena.sandbox import Sandbox
from arena.sandbox.reach import reachable_code_dir
from arena.sandbox.resident import ResidentFiles
from arena.series import Series
from arena.set_player import PlannedMatch, Seating, duplicate_sets, sets_play
from games.rules import get_game

#: The trivial bot of the round-trip figures: it echoes whatever it reads.
ECHO_PROGRAM = (
    "import os\n"
    "while True:\n"
    "    data = os.read(0, 65536)\n"
    "    if not data:\n"
    "        break\n"
    "    os.write(1, data)\n"
)
ECHO_SPEC = LaunchSpec((sys.executable, "-I", "-S", "-B", "-c", ECHO_PROGRAM), cwd="/")


def first_cpu() -> int:
    return min(os.sched_getaffinity(0))


def typical_decide_line() -> bytes:
    """A real decide message: the first decision of a Snag match, as the runner sends it."""
    game = get_game("snag")
    state = game.new_match(1)
    return encode(decide_message(1, game.observation(state, state.to_play), 1.0))


def bot_startup_ms(strategy: str = "random", runs: int = 21, cpu: int | None = None) -> float:
    """Median milliseconds from spawning a built-in bot to reading its ``ready``."""
    spec = BuiltinLauncher(strategy).launch_spec()
    start = encode(start_message("snag", 0, {"target": 50}, 1.0))
    times = []
    with pinned_to_cpu(cpu):
        for _ in range(runs):
            began = perf_counter()
            with BotProcess(spec) as bot:
                bot.send(start, timeout=5)
                bot.receive(timeout=5)
                times.append(perf_counter() - began)
    return statistics.median(times) * 1e3


#: The floor of every start-up figure: an interpreter that writes one byte and nothing else.
BARE_START_PROGRAM = "import os; os.write(1, b'\\n')"


def bare_start_ms(
    interpreter: str = sys.executable, runs: int = 21, cpu: int | None = None
) -> float:
    """Median ms from spawning ``interpreter -I -S -B`` that imports nothing to its first byte,
    through the same ``BotProcess`` as the bots (``python -I -S -c pass``, spawn to output)."""
    spec = LaunchSpec((interpreter, "-I", "-S", "-B", "-c", BARE_START_PROGRAM), cwd="/")
    times = []
    with pinned_to_cpu(cpu):
        for _ in range(runs):
            began = perf_counter()
            with BotProcess(spec) as bot:
                bot.receive(timeout=5)
                times.append(perf_counter() - began)
    return statistics.median(times) * 1e3


def bare_round_trip_us(rounds: int = 5000, cpu: int | None = None) -> float:
    """Median µs of one line to the echo bot and back with plain blocking pipe calls."""
    line = typical_decide_line()
    with pinned_to_cpu(cpu):
        process = subprocess.Popen(ECHO_SPEC.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            return _median_us(lambda: _bare_exchange(process, line), rounds)
        finally:
            process.kill()
            process.wait()
            process.stdin.close()
            process.stdout.close()


def _bare_exchange(process: subprocess.Popen, line: bytes) -> None:
    os.write(process.stdin.fileno(), line)
    received = b""
    while not received.endswith(b"\n"):
        received += os.read(process.stdout.fileno(), 65536)


def runner_round_trip_us(rounds: int = 5000, cpu: int | None = None) -> float:
    """Median µs of the same exchange through ``BotProcess.request``."""
    line = typical_decide_line()
    with pinned_to_cpu(cpu), BotProcess(ECHO_SPEC) as bot:
        return _median_us(lambda: bot.request(line, timeout=5), rounds)


def round_trip_overhead(rounds: int = 5000, repeats: int = 3, cpu: int | None = None) -> dict:
    """Bare and runner round trips measured alternately in one run, and their ratio.

    Pinned to ``cpu`` (default: the first CPU this process may use).
    """
    cpu = first_cpu() if cpu is None else cpu
    bare, runner = [], []
    for _ in range(repeats):
        bare.append(bare_round_trip_us(rounds, cpu))
        runner.append(runner_round_trip_us(rounds, cpu))
    bare_us, runner_us = statistics.median(bare), statistics.median(runner)
    return {"bare_us": bare_us, "runner_us": runner_us, "ratio": runner_us / bare_us}


class MatchBots(enum.Enum):
    """Who plays the benchmark matches: the same strategies, three ways."""

    #: Both strategies called in the runner's process: the engine and referee alone.
    IN_PROCESS = "in process"
    #: Built-in bot processes, ``python -I -S -B main.py``.
    PLAIN = "plain"
    #: The same built-in bots inside the sandbox.
    SANDBOXED = "sandboxed"
    #: Two C++ starter bots (``examples/starters/cpp``), built in the sandbox, played in it:
    #: random against random, natively. Their built folder is ``native`` (``build_cpp_starter``).
    NATIVE = "sandboxed C++ starter"


#: The benchmark pairing; the in-process floor plays random against random (STRATEGIES[1]).
STRATEGIES = ("snag_heuristic", "random")


def benchmark_players(
    bots: MatchBots, seed: int, sandbox: Sandbox | None = None, native: Path | None = None
) -> list[Player]:
    if bots is MatchBots.IN_PROCESS:
        choose = load_strategy(STRATEGIES[1])
        return [StrategyPlayer(choose, seed), StrategyPlayer(choose, seed + 1)]
    if bots is MatchBots.PLAIN:
        return [BuiltinLauncher(name, seed) for name in STRATEGIES]
    if sandbox is None:
        raise ValueError("sandboxed benchmark bots need a sandbox")
    if bots is MatchBots.NATIVE:
        if native is None:
            raise ValueError("the C++ starter bots need their build (build_cpp_starter)")
        # The starter reseeds at each start from its place in the series, not from ``seed``.
        return [cpp_starter_launcher(sandbox, native) for _ in range(2)]
    return [_sandboxed_builtin(sandbox, name, seed) for name in STRATEGIES]


def snag_matches_per_second(
    matches: int = 20,
    bots: MatchBots = MatchBots.PLAIN,
    cpu: int | None = None,
    sandbox: Sandbox | None = None,
) -> dict[str, Any]:
    """End-to-end Snag matches (target 50), heuristic against random (random against random
    in process), one after another on one CPU (``None``: not pinned).

    Returns matches per second, decisions per second and the median think time the referee
    measured.
    """
    game = get_game("snag")
    think_us: list[int] = []

    def emit(kind: str, payload: dict[str, Any]) -> None:
        if kind == "decision":
            think_us.append(payload["think_us"])

    began = perf_counter()
    for seed in range(matches):
        players = benchmark_players(bots, seed, sandbox)
        referee_match(game, game.new_match(seed), players, limits=Limits(), emit=emit, cpu=cpu)
    seconds = perf_counter() - began
    return {
        "matches_per_second": matches / seconds,
        "decisions_per_second": len(think_us) / seconds,
        "median_think_us": statistics.median(think_us),
    }


def _median_us(exchange: Callable[[], object], rounds: int) -> float:
    for _ in range(min(200, rounds)):
        exchange()  # warm up both processes and the caches
    times = []
    for _ in range(rounds):
        began = perf_counter_ns()
        exchange()
        times.append(perf_counter_ns() - began)
    return statistics.median(times) / 1e3


# The sandbox. --------------------------------------------------------------------------------


#: The smallest real bot: it imports ``json`` (most of Python's start-up, ``docs/sandbox.md``) and
#: answers ``start``; the start-up rows time it with and without the sandbox.
MINIMAL_BOT = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    if json.loads(line)['type'] == 'start':\n"
    "        print(json.dumps({'type': 'ready'}), flush=True)\n"
)


def _bench_code_dir(sandbox: Sandbox, name: str, program: str, file: str = "bot.py") -> Path:
    """A folder holding ``program`` as ``file``, readable by the sandbox's uids."""
    folder = sandbox.config.state_dir / f"bench-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    script = folder / file
    script.write_text(program)
    script.chmod(0o644)
    return folder


def _sandboxed_builtin(sandbox: Sandbox, strategy: str, seed: int | None = None) -> BotLauncher:
    args = (strategy,) if seed is None else (strategy, str(seed))
    return sandbox.launcher(BUILTIN_DIR, script="main.py", args=args)


def startup_ms(launcher: BotLauncher, runs: int = 21, cpu: int | None = None) -> float:
    """Median ms from asking ``launcher`` for a bot (for the sandbox: slot, sweep, spawn) to
    its ``ready``. Closing (kill, reap, uid sweep) is not counted: it follows the match."""
    start = encode(start_message("snag", 0, {"target": 50}, 1.0))
    times = []
    with pinned_to_cpu(cpu):
        for _ in range(runs):
            began = perf_counter()
            bot = BotProcess(launcher.launch_spec())
            try:
                bot.send(start, timeout=5)
                bot.receive(timeout=5)
                times.append(perf_counter() - began)
            finally:
                bot.close()
    return statistics.median(times) * 1e3


def minimal_bot_startup_ms(
    sandbox: Sandbox, runs: int = 21, cpu: int | None = None
) -> dict[str, float]:
    """Start-up of the minimal bot as a plain process and in the sandbox, both with the
    sandbox's interpreter, beside the bare start of that interpreter; one run each."""
    folder = _bench_code_dir(sandbox, "minimal", MINIMAL_BOT)
    plain = _InterpreterLauncher(sandbox.interpreter, folder / "bot.py")
    return {
        "bare_ms": bare_start_ms(sandbox.interpreter, runs, cpu),
        "plain_ms": startup_ms(plain, runs, cpu),
        "sandbox_ms": startup_ms(sandbox.launcher(folder), runs, cpu),
    }


def warming_ms(sandbox: Sandbox, runtime: str = "python", runs: int = 201) -> dict[str, float]:
    """What making every file a bot of ``runtime`` can read resident costs its launch
    (``arena.sandbox.resident``, called by ``SandboxLauncher.launch_spec``): the first launch
    of a worker process (each file mapped, read in where it is not cached, and locked), then
    each later one (every file resident and locked: a ``stat`` of each folder), median of
    ``runs``; and how much stays resident (MiB)."""
    code = _bench_code_dir(sandbox, "minimal", MINIMAL_BOT)
    folder = reachable_code_dir(code, sandbox.config.uid_base)
    program = sandbox.runtime_program(runtime_named(runtime))
    readable = sandbox.readable(folder, program)
    kept = ResidentFiles()
    try:
        first = kept.make_resident(readable)
        later = [kept.make_resident(readable).seconds for _ in range(runs)]
    finally:
        kept.forget()
    return {
        "first_ms": first.seconds * 1e3,
        "warm_ms": statistics.median(later) * 1e3,
        "resident_mib": first.bytes / (1 << 20),
    }


#: The C++ starter kit, built and played as an upload of it is (``arena.runtimes``' ``cpp`` row).
CPP_STARTER = Path(__file__).resolve().parents[1] / "examples" / "starters" / "cpp" / "bot.cpp"


def build_cpp_starter(sandbox: Sandbox) -> Path:
    """Build the C++ starter in the sandbox as an upload of it is built, once; the folder of
    its built files (content-addressed under the sandbox's state folder, readable by the slot
    uids). ``RuntimeError`` with the build's log if it fails."""
    runtime = runtime_named("cpp")
    sources = _bench_code_dir(sandbox, "cpp-starter", CPP_STARTER.read_text(), "bot.cpp")
    result = build_in_sandbox(sandbox, runtime, sources, BuildLimits())
    if result.code is None:
        raise RuntimeError(f"the C++ starter did not build:\n{result.log}")
    return store_code(result.code, sandbox.config.state_dir / "bench-builds")


def cpp_starter_launcher(sandbox: Sandbox, native: Path) -> BotLauncher:
    """The built C++ starter in ``native``, run in the sandbox as the ``cpp`` row runs it."""
    return sandbox.runtime_launcher(native, runtime_named("cpp"))


@dataclass(frozen=True)
class _InterpreterLauncher:
    """``interpreter -I -S -B script``, a plain process (the sandbox's interpreter, unwrapped)."""

    interpreter: str
    script: Path

    def launch_spec(self) -> LaunchSpec:
        argv = (self.interpreter, "-I", "-S", "-B", str(self.script))
        return LaunchSpec(argv, cwd=str(self.script.parent))


def sandbox_round_trip_overhead(
    sandbox: Sandbox, rounds: int = 5000, repeats: int = 3, cpu: int | None = None
) -> dict:
    """The bare pipe round trip beside the same exchange with the echo bot in the sandbox."""
    cpu = first_cpu() if cpu is None else cpu
    launcher = sandbox.launcher(_bench_code_dir(sandbox, "echo", ECHO_PROGRAM))
    line = typical_decide_line()
    bare, sandboxed = [], []
    for _ in range(repeats):
        bare.append(bare_round_trip_us(rounds, cpu))
        with pinned_to_cpu(cpu), BotProcess(launcher.launch_spec()) as bot:
            sandboxed.append(_median_us(lambda: bot.request(line, timeout=5), rounds))
    bare_us, sandbox_us = statistics.median(bare), statistics.median(sandboxed)
    return {"bare_us": bare_us, "sandbox_us": sandbox_us, "ratio": sandbox_us / bare_us}


def _matches_on_cpu(
    bots: MatchBots,
    sandbox: Sandbox | None,
    cpu: int,
    seeds: range,
    series: int = 1,
    in_sets: bool = False,
    native: Path | None = None,
) -> int:
    game = get_game("snag")
    if in_sets:
        return _sets_on_cpu(bots, sandbox, cpu, seeds, series)
    if series > 1:
        return _series_on_cpu(bots, sandbox, cpu, seeds, series, native)
    for seed in seeds:
        players = benchmark_players(bots, seed, sandbox, native)
        result = referee_match(
            game, game.new_match(seed), players, limits=Limits(), emit=_ignore, cpu=cpu
        )
        _check_played(result)
    return len(seeds)


def _series_on_cpu(
    bots: MatchBots,
    sandbox: Sandbox | None,
    cpu: int,
    seeds: range,
    length: int,
    native: Path | None = None,
) -> int:
    """The matches of ``seeds`` in series of ``length``, one bot process per seat each."""
    game = get_game("snag")
    for first in range(seeds.start, seeds.stop, length):
        chunk = range(first, min(first + length, seeds.stop))
        players = benchmark_players(bots, first, sandbox, native)
        with Series(players, matches=len(chunk), cpu=cpu) as series:
            for seed in chunk:
                state = game.new_match(seed)
                _check_played(series.play(game, state, limits=Limits(), emit=_ignore))
    return len(seeds)


def _sets_on_cpu(
    bots: MatchBots, sandbox: Sandbox | None, cpu: int, seeds: range, length: int
) -> int:
    """Each deal of ``seeds`` from both seats, as a worker plays a pairing's sets
    (``arena.set_player``): runs of ``length`` sets, the run's first seatings one series,
    its processes ended, then its second seatings a fresh series."""
    game = get_game("snag")
    played = sets_play(
        game=game,
        matches=duplicate_sets(seeds),
        players=lambda matches: _seated_benchmark_players(matches, bots, sandbox),
        limits=Limits(),
        series_length=length,
        cpu=cpu,
    )
    for match in played:
        _check_played(match.result)
    return 2 * len(seeds)


def _seated_benchmark_players(
    matches: Sequence[PlannedMatch], bots: MatchBots, sandbox: Sandbox | None
) -> tuple[Player, Player]:
    """The benchmark's players for a series of one seating, seeded from its first deal."""
    first, second = benchmark_players(bots, matches[0].seed, sandbox)
    return (first, second) if matches[0].seating is Seating.FIRST else (second, first)


def _check_played(result: MatchResult) -> None:
    if result.forfeit is not None:
        raise RuntimeError(f"a benchmark match forfeited: {result.forfeit}")


def snag_matches_per_second_all_cpus(
    bots: MatchBots,
    matches_per_cpu: int = 10,
    sandbox: Sandbox | None = None,
    series: int = 1,
    in_sets: bool = False,
    native: Path | None = None,
) -> float:
    """Snag matches (target 50) per second of wall time, one worker process per CPU, each
    pinned to its CPU as workers are; ``bots`` says who plays them, in series of ``series``
    matches (one bot process per seat for each series) or one match per process; with
    ``in_sets``, each deal from both seats, sealed seatings (twice the matches).
    ``native``: the C++ starter's built folder, for ``MatchBots.NATIVE``."""
    cpus = sorted(os.sched_getaffinity(0))
    context = multiprocessing.get_context("fork")
    with context.Pool(len(cpus)) as pool:
        # The clock starts once every worker is forked: the pool's start is no match's cost.
        began = perf_counter()
        jobs = [
            pool.apply_async(
                _matches_on_cpu,
                (
                    bots,
                    sandbox,
                    cpu,
                    range(n * matches_per_cpu, (n + 1) * matches_per_cpu),
                    series,
                    in_sets,
                    native,
                ),
            )
            for n, cpu in enumerate(cpus)
        ]
        played = sum(job.get(timeout=600) for job in jobs)
        return played / (perf_counter() - began)


def _ignore(kind: str, payload: dict[str, Any]) -> None:
    pass
