"""Print how well ratings recover a known order of strength: single matches or duplicate sets."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.table import Table

from games.rules import GAMES
from ops.ranking_simulation import simulate


class Command(BaseCommand):
    help = (
        "N bots of known strength play K matches as single matches and as duplicate sets; "
        "print Kendall's tau between the rating order and the true order against matches played."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", default="snag", help=f"one of {sorted(GAMES)}")
        parser.add_argument("--bots", type=int, default=6, help="bots of known strength")
        parser.add_argument("--matches", type=int, default=240, help="matches per scheme and run")
        parser.add_argument("--runs", type=int, default=5, help="repetitions averaged")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--target", type=int, default=None, help="the game's 'target' option (shorter matches)"
        )

    def handle(self, *args, game, bots, matches, runs, seed, target, **options) -> None:
        if game not in GAMES:
            raise CommandError(f"unknown game {game!r}; choose one of {sorted(GAMES)}")
        if bots < 2 or matches < 2 or runs < 1:
            raise CommandError("needs --bots >= 2, --matches >= 2 and --runs >= 1")
        marks = sorted({max(2, matches * share // 8) for share in range(1, 9)})
        began = time.perf_counter()
        results = simulate(
            game_id=game,
            bots=bots,
            matches=matches,
            checkpoints=marks,
            runs=runs,
            seed=seed,
            options={"target": target} if target else None,
        )
        seconds = time.perf_counter() - began
        table = Table(
            title=f"{GAMES[game].name}: {bots} bots of known strength, mean of {runs} runs"
        )
        for column in ("matches played", "tau, single matches", "tau, duplicate sets", "gain"):
            table.add_column(column, justify="right")
        for point in results:
            table.add_row(
                str(point.matches),
                f"{point.tau_single:+.3f}",
                f"{point.tau_duplicate:+.3f}",
                f"{point.tau_duplicate - point.tau_single:+.3f}",
            )
        console = Console()
        console.print(table)
        console.print(
            f"Kendall's tau of the rating order against the true order (1 = exact)."
            f" {2 * matches * runs} matches in {seconds:.1f} s."
        )
