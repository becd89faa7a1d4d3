"""``manage.py builtin_bots``: the built-in opponents exist in a fresh database."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from bots.models import Bot, BotVersion
from games.rules import GAMES


@pytest.mark.django_db
def test_every_game_gets_its_built_in_bots_once_however_often_it_runs():
    out = StringIO()
    call_command("builtin_bots", stdout=out)
    call_command("builtin_bots", stdout=StringIO())

    for game_id in GAMES:
        bots = Bot.objects.filter(game=game_id, owner=None)
        assert set(bots.values_list("name", flat=True)) == {"random", "heuristic"}
        assert all(bot.on_ladder for bot in bots), "built-ins sit on the ladder as landmarks"
    assert BotVersion.objects.count() == 2 * len(GAMES)
    assert BotVersion.objects.filter(status="ready").count() == 2 * len(GAMES)
    assert "snag: random v1, heuristic v1" in out.getvalue().splitlines()
