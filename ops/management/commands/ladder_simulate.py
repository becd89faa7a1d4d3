"""``manage.py ladder_simulate``: the ladder's matchmaker on simulated bots of known strength.

Prints, per run and as medians: Kendall's tau of the final table against the true order,
the longest wait of any version between two sets, and the sets a strong newcomer needed
to reach its true place (``ops.ladder_simulation``).
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ops.ladder_simulation import LadderScenario, ladder_simulate


class Command(BaseCommand):
    help = "Simulate the ladder on bots of known strength and print how well it ranks them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=5)
        parser.add_argument("--bots", type=int, default=12)
        parser.add_argument("--hours", type=float, default=12.0)
        default = LadderScenario()
        parser.add_argument("--capacity", type=int, default=default.capacity, help="sets in flight")
        parser.add_argument(
            "--sets-per-pairing",
            type=int,
            default=default.rules.sets_per_pairing,
            help="sets a pair plays once paired",
        )

    def handle(
        self,
        *args: Any,
        runs: int,
        bots: int,
        hours: float,
        capacity: int,
        sets_per_pairing: int,
        **_: Any,
    ):
        if capacity < 1 or sets_per_pairing < 1:
            raise CommandError("--capacity and --sets-per-pairing must be at least 1")
        rules = dataclasses.replace(LadderScenario.rules, sets_per_pairing=sets_per_pairing)
        scenario = LadderScenario(bots=bots, hours=hours, capacity=capacity, rules=rules)
        self.stdout.write(
            f"{bots} bots {scenario.elo_step:g} set-Elo apart, {capacity} sets in flight"
            f" in pairings of {sets_per_pairing}, {hours:g} h; a newcomer of true rank"
            f" {scenario.newcomer_rank + 1} joins halfway"
        )
        self.stdout.write(
            f"{'run':>4} {'sets':>6} {'tau':>6} {'longest wait':>13} {'placed in':>10}"
        )
        reports = [ladder_simulate(scenario, seed) for seed in range(runs)]
        for seed, report in enumerate(reports):
            placed = "-" if report.newcomer_sets_to_place is None else report.newcomer_sets_to_place
            self.stdout.write(
                f"{seed:>4} {report.sets:>6} {report.tau:>6.3f}"
                f" {report.longest_wait_seconds:>11.0f} s {placed:>10}"
            )
        placed = [r.newcomer_sets_to_place for r in reports if r.newcomer_sets_to_place is not None]
        bound = scenario.wait_bound_seconds
        self.stdout.write(
            f"median tau {statistics.median(r.tau for r in reports):.3f};"
            f" longest wait {max(r.longest_wait_seconds for r in reports):.0f} s"
            f" (bound {bound:.0f} s);"
            f" newcomer placed in a median {statistics.median(placed) if placed else '-'} sets"
            f" ({len(placed)} of {runs} runs)"
        )
