"""Print how often each game's heuristic bot beats ``random`` over seat-swapped matches, or,
with ``--bot``, how often a bot file beats the game's heuristic."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.table import Table

from arena.builtin.strategies import load
from arena.referee import StrategyPlayer
from arena.runner import ScriptLauncher
from bots.services.bots import builtin_strategy_names
from bots.services.launch import referee_limits
from games.rules import GAMES
from ops.strength import HeadToHead, duel, head_to_head


class Command(BaseCommand):
    help = (
        "Win rate of each game's heuristic bot against random, over duplicate sets; with"
        " --bot, of a bot file against the game's heuristic."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", help="a game id (repeatable); default all")
        parser.add_argument("--sets", type=int, default=150, help="seat-swapped sets per game")
        parser.add_argument(
            "--bot",
            type=Path,
            help="a .py file or a folder holding bot.py, for one --game: it plays as a process,"
            " with the server's time limits, against that game's heuristic",
        )

    def handle(
        self, *args: Any, game: list[str] | None, sets: int, bot: Path | None, **options: Any
    ) -> None:
        games = game or list(GAMES)
        unknown = sorted(set(games) - set(GAMES))
        if unknown:
            raise CommandError(f"unknown game(s) {unknown}; choose from {sorted(GAMES)}")
        if sets < 1:
            raise CommandError("--sets must be at least 1")
        if bot is None:
            heuristics = [(g, builtin_strategy_names(g)["heuristic"]) for g in games]
            outcomes = [head_to_head(g, name, "random", sets=sets) for g, name in heuristics]
            contender = "heuristic"
        elif len(games) == 1:
            outcomes = [_bot_against_heuristic(games[0], bot, sets)]
            contender = bot.name
        else:
            raise CommandError("--bot plays one game: name it with --game")
        opponent = "random" if bot is None else "heuristic"
        title = f"{contender} vs {opponent}, {sets} seat-swapped sets per game"
        Console().print(_table(title, contender, outcomes))


def _bot_against_heuristic(game_id: str, bot: Path, sets: int) -> HeadToHead:
    script = bot / "bot.py" if bot.is_dir() else bot
    if script.suffix != ".py" or not script.is_file():
        raise CommandError(f"--bot wants a .py file or a folder holding bot.py, not {bot}")
    launcher = ScriptLauncher(script.resolve())
    heuristic = load(builtin_strategy_names(game_id)["heuristic"])
    return duel(
        game_id,
        (bot.name, lambda seed: launcher),
        ("heuristic", lambda seed: StrategyPlayer(heuristic, seed)),
        sets=sets,
        limits=referee_limits(),
    )


def _table(title: str, contender: str, outcomes: list[HeadToHead]) -> Table:
    table = Table(title=title)
    columns = ("game", "matches", f"{contender} wins", "win rate", "95% interval", "forfeits")
    for column in columns:
        table.add_column(column, justify="left" if column == "game" else "right")
    for outcome in outcomes:
        low, high = outcome.wilson_interval()
        table.add_row(
            outcome.game_id,
            str(outcome.matches),
            str(outcome.wins),
            f"{outcome.win_rate:.1%}",
            f"{low:.1%} - {high:.1%}",
            str(outcome.forfeits),
        )
    return table
