"""A match's points part by part (Rounds: stage by stage) in the match API."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from games.replay import state_at
from games.rules import get_game
from matches import services
from matches.models import Match
from matches.play import match_play
from matches.selectors import match_event_records

pytestmark = pytest.mark.django_db


def version(game: str, name: str, builtin: str) -> BotVersion:
    bot = Bot.objects.create(owner=None, game=game, name=name)
    return BotVersion.objects.create(
        bot=bot, number=1, builtin=builtin, content_hash=name, status=BotVersion.Status.READY
    )


def twins(game: str, builtins: tuple[str, str], options: dict) -> tuple[Match, Match]:
    """Two matches dealt from one seed, seats swapped; neither played yet."""
    versions = [version(game, name, name) for name in builtins]
    pair = []
    for seats in (versions, versions[::-1]):
        match = services.match_create(game_id=game, seed=31, options=options)
        services.match_seats_create(match=match, versions=seats)
        pair.append(match)
    return pair[0], pair[1]


def detail(match: Match) -> dict:
    response = APIClient().get(f"/api/matches/{match.pk}/")
    assert response.status_code == 200
    return response.json()


def test_a_rounds_match_gives_the_points_of_each_stage_adding_up_to_its_scores():
    first, twin = twins("rounds", ("rounds_heuristic", "random"), {"target": 60})
    for match in (first, twin):
        match_play(match_id=match.pk)

    body = detail(first)

    parts = body["score_parts"]
    assert len(parts) % 5 == 0 and len(parts) >= 5
    assert [part["deal_number"] for part in parts] == list(range(1, len(parts) + 1))
    assert [(part["game_number"], part["stage"]) for part in parts[:5]] == [
        (1, stage) for stage in range(1, 6)
    ]
    for seat in (0, 1):
        assert sum(part["points"][seat] for part in parts) == body["scores"][seat]
    records = match_event_records(match=first)
    steps = sum(1 for record in records if record.type == "decision")
    last_game = state_at(records, steps).observations[0]["last_game"]
    assert [part["points"] for part in parts[-5:]] == [s["points"] for s in last_game["stages"]]


def test_the_stage_points_are_withheld_with_the_moves_while_the_twin_plays():
    first, twin = twins("rounds", ("random", "rounds_heuristic"), {"target": 30})
    match_play(match_id=first.pk)

    assert detail(first)["score_parts"] is None
    match_play(match_id=twin.pk)
    assert len(detail(first)["score_parts"]) >= 5


def test_a_game_that_reports_no_parts_says_null():
    assert get_game("snag").score_part is None
    first, _ = twins("snag", ("random", "snag_heuristic"), {"target": 10})

    assert detail(first)["score_parts"] is None
