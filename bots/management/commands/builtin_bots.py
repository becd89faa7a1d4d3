"""``manage.py builtin_bots``: make sure every game's built-in bots exist, at their current
code (idempotent; the deployment runs it after ``migrate``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from bots.services.bots import builtin_bots_sync
from games.rules import GAMES


class Command(BaseCommand):
    help = "Create or update the built-in bots (random, heuristic) of every game."

    def handle(self, *args: Any, **options: Any) -> None:
        for game_id in sorted(GAMES):
            versions = builtin_bots_sync(game_id=game_id)
            names = ", ".join(f"{v.bot.name} v{v.number}" for v in versions)
            self.stdout.write(f"{game_id}: {names}")
