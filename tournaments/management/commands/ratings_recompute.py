"""Recompute a game's ratings from the event logs and say whether they equal the stored ones."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.rules import GAMES
from tournaments.ratings.services import ratings_recompute


class Command(BaseCommand):
    help = (
        "Replay every rating update of a game in order, from the prior and the match event "
        "logs, and compare the result with the stored ratings bit for bit."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", help="a game id (repeat); default: all")
        parser.add_argument(
            "--check", action="store_true", help="compare only; change nothing (exit 1 on a diff)"
        )
        parser.add_argument("--reason", default="recompute command", help="recorded in the audit")

    def handle(self, *args, game: list[str] | None, check: bool, reason: str, **options) -> None:
        games = game or sorted(GAMES)
        unknown = sorted(set(games) - set(GAMES))
        if unknown:
            raise CommandError(f"unknown game(s) {unknown}; choose from {sorted(GAMES)}")
        differing = 0
        for game_id in games:
            result = ratings_recompute(game_id=game_id, reason=reason, write=not check)
            verdict = (
                "identical bit for bit"
                if result.identical
                else f"{len(result.differing)} DIFFER (versions {list(result.differing)})"
            )
            action = "" if check or result.identical else "; rewritten"
            self.stdout.write(
                f"{game_id}: {result.updates} updates replayed, {result.ratings} ratings:"
                f" {verdict}{action}"
            )
            differing += len(result.differing)
        if check and differing:
            raise CommandError(f"{differing} rating(s) differ from the event logs")
