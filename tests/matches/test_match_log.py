"""``GET /api/matches/{id}/log/`` and the built-in bots' recorded seeds."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from matches import services
from matches.models import Match
from matches.play import bot_seed, match_play, matches_play_as_sets

pytestmark = pytest.mark.django_db


def version(name: str, builtin: str, owner: User | None = None) -> BotVersion:
    bot = Bot.objects.create(owner=owner, game="snag", name=name)
    return BotVersion.objects.create(
        bot=bot, number=1, builtin=builtin, content_hash=name, status=BotVersion.Status.READY
    )


def new_match(seed: int, versions: list[BotVersion]) -> Match:
    match = services.match_create(game_id="snag", seed=seed, options={"target": 10})
    services.match_seats_create(match=match, versions=versions)
    return match


def log_lines(client: APIClient, match: Match, **params) -> list[dict]:
    response = client.get(f"/api/matches/{match.pk}/log/", params)
    assert response.status_code == 200, response.content
    return [json.loads(line) for line in response.content.decode().splitlines()]


def test_the_log_is_the_views_and_each_view_only_to_whom_it_may_be():
    owner = User.objects.create_user("owner", password="x")
    mine, theirs = version("mine", "random", owner), version("theirs", "random")
    played, twin = new_match(77, [mine, theirs]), new_match(77, [theirs, mine])
    match_play(match_id=played.pk)
    client = APIClient()

    # The twin is pending: the deal is in play, its seed and the bots' seeds are withheld.
    started = log_lines(client, played)[0]
    assert started["payload"]["seed"] is None and started["hash"] is None
    assert [p["bot_seed"] for p in started["payload"]["players"]] == [None, None]
    assert started["redacted"] == "the seed"
    assert client.get(f"/api/matches/{played.pk}/log/", {"view": "seat0"}).status_code == 403
    client.force_login(owner)
    response = client.get(f"/api/matches/{played.pk}/log/", {"view": "seat0"})
    assert f'filename="match-{played.pk}-seat0.jsonl"' in response["Content-Disposition"]
    assert client.get(f"/api/matches/{played.pk}/log/", {"view": "seat1"}).status_code == 403

    match_play(match_id=twin.pk)
    for view in ("public", "full", "seat0"):
        started = log_lines(client, played, view=view)[0]
        assert started["payload"]["seed"] == 77 and "redacted" not in started
        seeds = [p["bot_seed"] for p in started["payload"]["players"]]
        assert seeds == [bot_seed(played, seat) for seat in played.seats.order_by("seat")]


def test_a_series_records_the_seed_each_built_in_bot_played_each_match_with(tmp_path):
    first, second = version("first", "random"), version("second", "snag_heuristic")
    matches = [new_match(seed, [first, second]) for seed in (11, 12, 13)]
    played = list(matches_play_as_sets(match_ids=[match.pk for match in matches]))
    assert played == [match.pk for match in matches]
    client = APIClient()
    base = [bot_seed(matches[0], seat) for seat in matches[0].seats.order_by("seat")]
    for number, match in enumerate(matches, start=1):
        events = log_lines(client, match)
        players = events[0]["payload"]["players"]
        assert [p["bot_seed"] for p in players] == [seed + number - 1 for seed in base]
    # The third match of the series, played again by a fresh process with its recorded seed.
    path = tmp_path / "third.jsonl"
    path.write_bytes(client.get(f"/api/matches/{matches[2].pk}/log/").content)
    out = StringIO()
    recorded = players[0]["bot_seed"]
    call_command(
        "play", "--replay", str(path), "--seat", "0", "random", "--bot-seed", str(recorded),
        "--quiet", stdout=out,
    )  # fmt: skip
    assert "no difference" in out.getvalue() and "(the same result)" in out.getvalue()
