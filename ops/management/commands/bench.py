"""``make bench``: the benchmark table, medians of several runs, with the targets beside them.

Beside each figure stands the floor it is measured against in the same run (a bare loop, the
engine alone, a bare pipe, a bare interpreter start, plain processes), and the figure as a
multiple of it, so that the ratios can be read on any machine.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection
from rich.console import Console
from rich.table import Table

from games.rules import GAMES
from ops import bot_benchmarks as bot_bench
from ops import game_benchmarks as game_bench
from ops import match_benchmarks as match_bench
from ops import page_benchmarks as page_bench
from ops.bot_benchmarks import MatchBots

if TYPE_CHECKING:
    from arena.sandbox import Sandbox

COLUMNS = ("what", "median", "unit", "floor", "floor is", "× floor", "target", "met")


@dataclass(frozen=True)
class Figure:
    """One row: a median, the floor measured beside it, and the target it must meet."""

    what: str
    value: float
    unit: str
    floor: float | None = None
    floor_is: str = ""
    target: float | None = None
    lower_is_better: bool = False
    #: The target bounds the figure as a multiple of its floor, not the figure itself.
    target_is_ratio: bool = False

    @property
    def ratio(self) -> float | None:
        return None if not self.floor else self.value / self.floor

    def cells(self) -> tuple[str, ...]:
        floor = "" if self.floor is None else _number(self.floor)
        ratio = "" if self.ratio is None else f"{self.ratio:,.2f}×"
        return (
            self.what,
            _number(self.value),
            self.unit,
            floor,
            self.floor_is,
            ratio,
            *self._target_cells(),
        )

    def _target_cells(self) -> tuple[str, str]:
        if self.target is None:
            return ("", "")
        measured = self.ratio if self.target_is_ratio else self.value
        met = measured <= self.target if self.lower_is_better else measured >= self.target
        bound = "≤" if self.lower_is_better else "≥"
        suffix = "×" if self.target_is_ratio else ""
        return (f"{bound} {self.target:,}{suffix}", "yes" if met else "NO")


class Command(BaseCommand):
    help = "Measure the engines, replay, event appends, and bots through the runner."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
        parser.add_argument("--quick", action="store_true", help="fewer, shorter runs")
        parser.add_argument(
            "--only",
            choices=sorted(ROW_GROUPS),
            action="append",
            help="measure only this group of rows (repeatable); default: all of them",
        )

    def handle(
        self, *args: Any, runs: int, quick: bool, only: list[str] | None, **options: Any
    ) -> None:
        runs = 3 if quick else max(1, runs)
        console = Console(width=140)
        table = Table(title=f"Baize benchmarks (median of {runs} runs, {connection.vendor})")
        for column in COLUMNS:
            left = column in ("what", "unit", "floor is")
            table.add_column(column, justify="left" if left else "right")
        figures = [
            figure
            for name, rows in ROW_GROUPS.items()
            if not only or name in only
            for figure in rows(runs, quick, console)
        ]
        for figure in figures:
            table.add_row(*figure.cells())
        console.print(table)


def _engine_rows(runs: int, quick: bool, console: Console) -> list[Figure]:
    seconds = 0.3 if quick else 1.0
    console.log("bare loop")
    loop = _median(runs, lambda: game_bench.bare_loop_decisions_per_second(seconds=seconds))
    rows = []
    for game_id in GAMES:
        console.log(f"engine: {game_id}")
        figures = [game_bench.engine_throughput(game_id, seconds=seconds) for _ in range(runs)]
        decisions = statistics.median(f["decisions_per_second"] for f in figures)
        matches = statistics.median(f["matches_per_second"] for f in figures)
        rows.append(Figure(f"{game_id}: random matches, in engine", matches, "matches/s"))
        rows.append(
            Figure(
                f"{game_id}: decisions via facade, 1 core",
                decisions,
                "decisions/s",
                loop,
                "bare loop",
                target=300_000,
            )
        )
    return rows


def _log_rows(runs: int, quick: bool, console: Console) -> list[Figure]:
    console.log("replay")
    log = game_bench.random_match_log(game_id="snag", seed=1, rng=random.Random(1))
    replay = _median(runs, lambda: game_bench.replay_events_per_second(log))
    fold = _median(runs, lambda: game_bench.engine_fold_events_per_second(log))
    console.log("event appends")
    appends = _median(runs, lambda: match_bench.append_events_per_second(events=2000))
    hashing = _median(runs, lambda: game_bench.chain_events_per_second(log))
    return [
        Figure(
            "replay of a stored Snag log",
            replay,
            "events/s",
            fold,
            "engine alone",
            target=200_000,
        ),
        Figure(
            f"event appends ({connection.vendor})", appends, "events/s", hashing, "hashing alone"
        ),
    ]


#: The PostgreSQL rows' targets: twice the ratio to its floor of the matches per second of
#: the log as stored before ``matches`` migration 0002, which was 0.155× (median of 8 runs);
#: a finished match's log in at most 8 KiB, a quarter of its 33.8 kB as one row an event
#: (``matches`` migration 0004, docs/bench.md).
STORED_MATCHES_TARGET = 0.31
LOG_BYTES_TARGET = 8192


def _postgres_log_rows(runs: int, quick: bool, console: Console) -> list[Figure]:
    """Matches stored in PostgreSQL and their log's bytes, measured by ``manage.py
    bench_event_log`` in a scratch database on the server at ``BENCH_POSTGRES_URL`` (else at
    ``DATABASE_URL`` when that is PostgreSQL); skipped, and said so, when none answers."""
    url = os.environ.get("BENCH_POSTGRES_URL", "")
    if not url and connection.vendor == "postgresql":
        url = os.environ.get("DATABASE_URL", "")
    if not url:
        console.log("PostgreSQL log rows skipped: no BENCH_POSTGRES_URL")
        return []
    console.log("matches stored in PostgreSQL")
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py"), "bench_event_log"]
    matches = 20 if quick else 40
    done = subprocess.run(
        [*manage, "--runs", str(runs), "--matches", str(matches)],
        env={**os.environ, "DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1]
        console.log(f"PostgreSQL log rows skipped: {reason}")
        return []
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return [
        Figure(
            "Snag matches stored in PostgreSQL, in-process random bots, 1 core",
            figures["stored_matches_per_second"],
            "matches/s",
            figures["unstored_matches_per_second"],
            "log not stored",
            target=STORED_MATCHES_TARGET,
            target_is_ratio=True,
        ),
        Figure(
            "event log on disk per finished Snag match, PostgreSQL",
            figures["bytes_per_match"],
            "bytes",
            figures["content_per_match"],
            "events hashed",
            target=LOG_BYTES_TARGET,
            lower_is_better=True,
        ),
    ]


def _bot_rows(runs: int, quick: bool, console: Console) -> list[Figure]:
    cpu = bot_bench.first_cpu()
    console.log("bot start-up")
    bare = _median(runs, lambda: bot_bench.bare_start_ms(runs=11, cpu=cpu))
    startup = _median(runs, lambda: bot_bench.bot_startup_ms(runs=11, cpu=cpu))
    console.log("round trips")
    trips = [
        bot_bench.round_trip_overhead(rounds=2000 if quick else 5000, repeats=1)
        for _ in range(runs)
    ]
    console.log("end-to-end matches")
    matches = 5 if quick else 10

    def rate(bots: MatchBots) -> float:
        played = matches * 10 if bots is MatchBots.IN_PROCESS else matches
        return bot_bench.snag_matches_per_second(played, bots, cpu)["matches_per_second"]

    engine = _median(runs, lambda: rate(MatchBots.IN_PROCESS))
    plain = _median(runs, lambda: rate(MatchBots.PLAIN))
    return [
        Figure(
            "bot start-up, spawn to ready",
            startup,
            "ms",
            bare,
            "bare python",
            target=25,
            lower_is_better=True,
        ),
        Figure(
            "runner round trip per decision, pinned",
            statistics.median(t["runner_us"] for t in trips),
            "µs",
            statistics.median(t["bare_us"] for t in trips),
            "bare pipe",
            target=1.7,
            lower_is_better=True,
            target_is_ratio=True,
        ),
        Figure("Snag matches, in-process random bots, 1 core", engine, "matches/s"),
        Figure(
            "Snag matches, two subprocess bots, 1 core", plain, "matches/s", engine, "in process"
        ),
    ]


def _sandbox_rows(runs: int, quick: bool, console: Console) -> list[Figure]:
    """The sandbox of uploaded bots beside the plain processes it wraps (arena/sandbox)."""
    from bots.services.launch import current_sandbox

    sandbox = current_sandbox()
    if not sandbox.report.safe:
        console.log(f"sandbox rows skipped: {sandbox.report.reason}")
        level = sandbox.report.level
        return [Figure("sandbox level (3 is full)", float(level), level.name.lower(), target=3)]
    cpu = bot_bench.first_cpu()
    native = _cpp_starter_build(sandbox, console)
    console.log("sandbox start-up")
    # The C++ starter's start-up is measured run for run beside the Python bot's.
    startups, native_startups = [], []
    for _ in range(runs):
        startups.append(bot_bench.minimal_bot_startup_ms(sandbox, runs=11, cpu=cpu))
        if native is not None:
            launcher = bot_bench.cpp_starter_launcher(sandbox, native)
            native_startups.append(bot_bench.startup_ms(launcher, runs=11, cpu=cpu))
    bare, plain, boxed = (
        statistics.median(s[key] for s in startups) for key in ("bare_ms", "plain_ms", "sandbox_ms")
    )
    console.log("warming what a bot can read")
    warming = {
        name: [bot_bench.warming_ms(sandbox, name) for _ in range(runs)]
        for name in WARMED_RUNTIMES
        if sandbox.runtimes()[name].available
    }
    console.log("sandbox round trips")
    rounds = 2000 if quick else 5000
    trips = [bot_bench.sandbox_round_trip_overhead(sandbox, rounds, 1, cpu) for _ in range(runs)]
    console.log("matches over all cores: in process, plain bots")
    # Every match row plays the same deals, one series' worth per CPU: the series row's
    # matches are the very ones of the one-match-per-process row (the built-in bots reseed
    # at each start, arena/builtin/main.py). Snag matches vary in length (sd about a quarter
    # of the mean), so other deals would weigh on the ratio.
    length = settings.BAIZE_SERIES_MAX_MATCHES

    def rate(bots: MatchBots, series: int = 1, in_sets: bool = False) -> float:
        # In process, a match takes milliseconds: more of them make a steady figure.
        matches = length * 10 if bots is MatchBots.IN_PROCESS else length
        return bot_bench.snag_matches_per_second_all_cpus(
            bots, matches, sandbox, series, in_sets, native
        )

    engine = _median(runs, lambda: rate(MatchBots.IN_PROCESS))
    plain_matches = _median(runs, lambda: rate(MatchBots.PLAIN))
    console.log(f"sandboxed matches over all cores, one per process and in series of {length}")
    # Run for run, alternately: the machine's load moves the figures alike, and their
    # ratios are the series rows' targets. The sets row plays as workers do, through the
    # set player: a run's first seatings one series, its processes ended, then the second.
    # The C++ starter's series run in the same turns, its ratio to the Python series row.
    boxed_runs, series_runs, sets_runs, native_runs = [], [], [], []
    for _ in range(runs):
        boxed_runs.append(rate(MatchBots.SANDBOXED))
        series_runs.append(rate(MatchBots.SANDBOXED, series=length))
        sets_runs.append(rate(MatchBots.SANDBOXED, series=length, in_sets=True))
        if native is not None:
            native_runs.append(rate(MatchBots.NATIVE, series=length))
    boxed_matches = statistics.median(boxed_runs)
    series_matches = statistics.median(series_runs)
    sets_matches = statistics.median(sets_runs)
    cores = len(os.sched_getaffinity(0))
    native_rows = _native_startup_rows(native_startups, boxed)
    return [
        Figure("minimal bot start-up, plain process", plain, "ms", bare, "bare python"),
        Figure(
            "minimal bot start-up, in the sandbox",
            boxed,
            "ms",
            plain,
            "plain start",
            target=25,
            lower_is_better=True,
        ),
        *native_rows,
        *_warming_rows(warming, boxed),
        Figure(
            "sandbox round trip per decision, pinned",
            statistics.median(t["sandbox_us"] for t in trips),
            "µs",
            statistics.median(t["bare_us"] for t in trips),
            "bare pipe",
            target=1.7,
            lower_is_better=True,
            target_is_ratio=True,
        ),
        Figure(f"Snag matches, in-process random bots, {cores} cores", engine, "matches/s"),
        Figure(
            f"Snag matches, plain bots, {cores} cores",
            plain_matches,
            "matches/s",
            engine,
            "in process",
        ),
        Figure(
            f"Snag matches, sandboxed bots, {cores} cores",
            boxed_matches,
            "matches/s",
            plain_matches,
            "plain bots",
            target=50,
        ),
        Figure(
            f"Snag matches, sandboxed bots, {cores} cores",
            boxed_matches,
            "matches/s",
            engine,
            "in process",
        ),
        Figure(
            f"Snag matches, sandboxed bots in series of {length}, {cores} cores",
            series_matches,
            "matches/s",
            boxed_matches,
            "1 match/process",
            target=2.5,
            target_is_ratio=True,
        ),
        Figure(
            f"Snag matches, sandboxed, in sets (sealed seatings) of {length}, {cores} cores",
            sets_matches,
            "matches/s",
            series_matches,
            "one seating/task",
            target=0.9,
            target_is_ratio=True,
        ),
        *_native_series_rows(native_runs, series_matches, length, cores),
    ]


#: The runtimes whose warming is measured: the default, and the one that can read the most.
WARMED_RUNTIMES = ("python", "python-scientific")
#: Warming, every file already resident, may cost a launch at most this share of the
#: minimal bot's sandboxed start-up (docs/sandbox.md, "What a seating can leave behind").
WARMING_TARGET = 0.05


def _warming_rows(warming: dict[str, list[dict[str, float]]], start_ms: float) -> list[Figure]:
    rows = []
    for name, runs in warming.items():
        warm, first, mib = (
            statistics.median(run[key] for run in runs)
            for key in ("warm_ms", "first_ms", "resident_mib")
        )
        rows += [
            Figure(
                f"warming what a {name} bot reads ({mib:.0f} MiB), all resident",
                warm,
                "ms",
                start_ms,
                "sandbox start",
                target=WARMING_TARGET,
                lower_is_better=True,
                target_is_ratio=True,
            ),
            Figure(
                f"warming it at a worker's first {name} launch (map, lock)",
                first,
                "ms",
                start_ms,
                "sandbox start",
            ),
        ]
    return rows


#: The C++ starter's series row's target, as a multiple of the Python bots' series row (issue
#: 27): a native bot leaves the referee's own work, which should be at least three times less.
NATIVE_SERIES_TARGET = 3


def _cpp_starter_build(sandbox: Sandbox, console: Console) -> Path | None:
    """The C++ starter, built once in the sandbox for the native rows; ``None`` (the rows
    left out, and said why) where the ``cpp`` runtime is missing or the build fails."""
    status = sandbox.runtimes()["cpp"]
    if not status.available:
        console.log(f"C++ starter rows skipped: {status.missing}")
        return None
    console.log("building the C++ starter in the sandbox")
    try:
        return bot_bench.build_cpp_starter(sandbox)
    except RuntimeError as error:
        console.log(f"C++ starter rows skipped: {error}")
        return None


def _native_startup_rows(native_startups: list[float], python_ms: float) -> list[Figure]:
    if not native_startups:
        return []
    return [
        Figure(
            "C++ starter start-up, in the sandbox",
            statistics.median(native_startups),
            "ms",
            python_ms,
            "python bot",
        )
    ]


def _native_series_rows(
    native_runs: list[float], python_series: float, length: int, cores: int
) -> list[Figure]:
    if not native_runs:
        return []
    return [
        Figure(
            f"Snag matches, sandboxed C++ starters in series of {length}, {cores} cores",
            statistics.median(native_runs),
            "matches/s",
            python_series,
            "python series",
            target=NATIVE_SERIES_TARGET,
            target_is_ratio=True,
        )
    ]


def _load_rows(runs: int, quick: bool, console: Console) -> list[Figure]:
    """The pages and the standings API under load (gunicorn and wrk), then what the
    tournament page costs the server beside its floors, run for run (metrics off, an
    anonymous viewer, the code before sign-in)."""
    rows = [
        Figure(what, value, unit, target=target, lower_is_better=lower)
        for what, value, unit, target, lower in page_bench.bench_rows(
            runs=runs, quick=quick, log=console.log
        )
    ]
    return rows + [
        Figure(what, value, unit, floor, floor_is, target=target, target_is_ratio=True)
        for what, value, unit, floor, floor_is, target in page_bench.cost_rows(
            runs=runs, quick=quick, log=console.log
        )
    ]


#: The table's rows by group, in the table's order (``--only`` names them).
ROW_GROUPS: dict[str, Callable[[int, bool, Console], list[Figure]]] = {
    "engine": _engine_rows,
    "log": _log_rows,
    "postgres": _postgres_log_rows,
    "bots": _bot_rows,
    "sandbox": _sandbox_rows,
    "load": _load_rows,
}


def _median(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"
