"""``make bench``: the benchmark table, medians of several runs, with the targets beside them."""

from __future__ import annotations

import importlib.util
import os
import random
import statistics
from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection
from rich.console import Console
from rich.table import Table

from bots import benchmarks as bot_bench
from games import benchmarks as game_bench
from games.rules import GAMES
from matches import benchmarks as match_bench


class Command(BaseCommand):
    help = "Measure the engines, replay, event appends, and bots through the runner."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
        parser.add_argument("--quick", action="store_true", help="fewer, shorter runs")

    def handle(self, *args: Any, runs: int, quick: bool, **options: Any) -> None:
        runs = 3 if quick else max(1, runs)
        console = Console(width=110)
        table = Table(title=f"Baize benchmarks (median of {runs} runs, {connection.vendor})")
        for column in ("what", "median", "unit", "target", "met"):
            table.add_column(column, justify="left" if column in ("what", "unit") else "right")
        for row in self._rows(runs, quick, console):
            table.add_row(*row)
        console.print(table)

    def _rows(self, runs: int, quick: bool, console: Console) -> list[tuple[str, ...]]:
        rows = []
        for game_id in GAMES:
            console.log(f"engine: {game_id}")
            figures = [
                game_bench.engine_throughput(game_id, seconds=0.3 if quick else 1.0)
                for _ in range(runs)
            ]
            decisions = statistics.median(f["decisions_per_second"] for f in figures)
            matches = statistics.median(f["matches_per_second"] for f in figures)
            rows.append(_row(f"{game_id}: random matches, in engine", matches, "matches/s"))
            rows.append(
                _row(f"{game_id}: decisions via facade, 1 core", decisions, "decisions/s", 300_000)
            )
        console.log("replay")
        log = game_bench.random_match_log(game_id="snag", seed=1, rng=random.Random(1))
        replay = _median(runs, lambda: game_bench.replay_events_per_second(log))
        rows.append(_row("replay of a stored Snag log", replay, "events/s", 200_000))
        console.log("event appends")
        appends = _median(runs, lambda: match_bench.append_events_per_second(events=2000))
        rows.append(_row(f"event appends ({connection.vendor})", appends, "events/s"))
        console.log("bot start-up")
        startup = _median(runs, lambda: bot_bench.bot_startup_ms(runs=11))
        rows.append(_row("bot start-up, spawn to ready", startup, "ms", 25, lower_is_better=True))
        console.log("round trips")
        trips = [
            bot_bench.round_trip_overhead(rounds=2000 if quick else 5000, repeats=1)
            for _ in range(runs)
        ]
        bare = statistics.median(t["bare_us"] for t in trips)
        runner = statistics.median(t["runner_us"] for t in trips)
        ratio = statistics.median(t["ratio"] for t in trips)
        rows.append(_row("bare pipe round trip, pinned", bare, "µs"))
        rows.append(_row("runner round trip per decision, pinned", runner, "µs"))
        rows.append(_row("runner / bare round trip", ratio, "ratio", 1.7, lower_is_better=True))
        console.log("end-to-end matches")
        cpu = bot_bench.first_cpu()
        e2e = _median(
            runs,
            lambda: bot_bench.snag_matches_per_second(matches=5 if quick else 10, cpu=cpu)[
                "matches_per_second"
            ],
        )
        rows.append(_row("Snag matches, two subprocess bots, 1 core", e2e, "matches/s"))
        rows += _sandbox_rows(runs, quick, console)
        rows += _installed_app_rows(runs, quick, console)
        return rows


def _sandbox_rows(runs: int, quick: bool, console: Console) -> list[tuple[str, ...]]:
    """The sandbox of uploaded bots beside the plain processes it wraps (bots/sandbox)."""
    from bots.sandbox import current_sandbox

    sandbox = current_sandbox()
    if not sandbox.report.safe:
        console.log(f"sandbox rows skipped: {sandbox.report.reason}")
        return [("sandbox", sandbox.report.level.name.lower(), "level", "full", "NO")]
    cpu = bot_bench.first_cpu()
    console.log("sandbox start-up")
    startups = [bot_bench.minimal_bot_startup_ms(sandbox, runs=11, cpu=cpu) for _ in range(runs)]
    plain = statistics.median(s["plain_ms"] for s in startups)
    boxed = statistics.median(s["sandbox_ms"] for s in startups)
    console.log("sandbox round trips")
    rounds = 2000 if quick else 5000
    trips = [bot_bench.sandbox_round_trip_overhead(sandbox, rounds, 1, cpu) for _ in range(runs)]
    console.log("sandboxed matches over all cores")
    per_cpu = 3 if quick else 10
    plain_matches = _median(runs, lambda: bot_bench.snag_matches_per_second_all_cpus(None, per_cpu))
    boxed_matches = _median(
        runs, lambda: bot_bench.snag_matches_per_second_all_cpus(sandbox, per_cpu)
    )
    cores = len(os.sched_getaffinity(0))
    return [
        _row("minimal bot start-up, plain process", plain, "ms"),
        _row("minimal bot start-up, in the sandbox", boxed, "ms", 25, lower_is_better=True),
        _row(
            "sandbox round trip per decision, pinned",
            statistics.median(t["sandbox_us"] for t in trips),
            "µs",
        ),
        _row(
            "sandbox / bare round trip",
            statistics.median(t["ratio"] for t in trips),
            "ratio",
            1.7,
            lower_is_better=True,
        ),
        _row(f"Snag matches, plain bots, {cores} cores", plain_matches, "matches/s"),
        _row(f"Snag matches, sandboxed bots, {cores} cores", boxed_matches, "matches/s", 50),
    ]


def _installed_app_rows(runs: int, quick: bool, console: Console) -> list[tuple[str, ...]]:
    """Rows measured by the apps above this layer (the web pages under load), so that this
    layer names none of them: an installed app whose ``benchmarks`` module has
    ``bench_rows(runs=, quick=, log=)`` gives ``(what, value, unit, target, lower_is_better)``
    tuples."""
    rows = []
    for app in apps.get_app_configs():
        name = f"{app.name}.benchmarks"
        if importlib.util.find_spec(name) is None:
            continue
        measure = getattr(importlib.import_module(name), "bench_rows", None)
        for what, value, unit, target, lower in (
            measure(runs=runs, quick=quick, log=console.log) if measure else []
        ):
            rows.append(_row(what, value, unit, target, lower_is_better=lower))
    return rows


def _median(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def _row(
    what: str,
    value: float,
    unit: str,
    target: float | None = None,
    *,
    lower_is_better: bool = False,
) -> tuple[str, ...]:
    shown = f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"
    if target is None:
        return (what, shown, unit, "", "")
    met = value <= target if lower_is_better else value >= target
    bound = "≤" if lower_is_better else "≥"
    return (what, shown, unit, f"{bound} {target:,}", "yes" if met else "NO")
