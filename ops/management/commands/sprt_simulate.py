"""``manage.py sprt_simulate``: the version test's error rates and length, simulated."""

from __future__ import annotations

import random
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ops.sprt_simulation import sprt_simulate
from tournaments.sprt import SprtParameters


class Command(BaseCommand):
    help = "Run the sequential test on simulated sets and print its error rates and length."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=1000)
        parser.add_argument("--draw-rate", type=float, default=0.2)

    def handle(self, *args: Any, runs: int, draw_rate: float, **_: Any) -> None:
        parameters = SprtParameters()
        self.stdout.write(
            f"elo0 {parameters.elo0:g}, elo1 {parameters.elo1:g}, alpha {parameters.alpha},"
            f" beta {parameters.beta}, cap {parameters.max_sets} sets; {runs} runs,"
            f" {draw_rate:.0%} of sets drawn"
        )
        self.stdout.write(
            f"{'true elo':>9} {'better':>8} {'not better':>11} {'undecided':>10} {'mean sets':>10}"
        )
        for true_elo in (-50, 0, 25, 50, 100, 200):
            result = sprt_simulate(
                true_elo, parameters, draw_rate=draw_rate, runs=runs, rng=random.Random(true_elo)
            )
            self.stdout.write(
                f"{true_elo:>9} {result.better / runs:>8.1%} {result.not_better / runs:>11.1%}"
                f" {result.inconclusive / runs:>10.1%} {result.mean_sets:>10.1f}"
            )
