"""Print how often each game's heuristic bot beats ``random`` over seat-swapped matches."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.table import Table

from bots.services import builtin_strategy_names
from bots.strength import head_to_head
from games.rules import GAMES


class Command(BaseCommand):
    help = "Win rate of each game's heuristic bot against random, over duplicate sets."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", help="a game id (repeatable); default all")
        parser.add_argument("--sets", type=int, default=150, help="seat-swapped sets per game")

    def handle(self, *args: Any, game: list[str] | None, sets: int, **options: Any) -> None:
        games = game or list(GAMES)
        unknown = sorted(set(games) - set(GAMES))
        if unknown:
            raise CommandError(f"unknown game(s) {unknown}; choose from {sorted(GAMES)}")
        if sets < 1:
            raise CommandError("--sets must be at least 1")
        table = Table(title=f"heuristic vs random, {sets} seat-swapped sets per game")
        for column in ("game", "matches", "heuristic wins", "win rate", "95% interval", "forfeits"):
            table.add_column(column, justify="left" if column == "game" else "right")
        for game_id in games:
            strategies = builtin_strategy_names(game_id)
            outcome = head_to_head(game_id, strategies["heuristic"], "random", sets=sets)
            low, high = outcome.wilson_interval()
            table.add_row(
                game_id,
                str(outcome.matches),
                str(outcome.wins),
                f"{outcome.win_rate:.1%}",
                f"{low:.1%} - {high:.1%}",
                str(outcome.forfeits),
            )
        Console().print(table)
