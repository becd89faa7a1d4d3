"""``manage.py play --replay``: a match logged on the server, played again at home.

A match between two built-in bots is played through the server's path, its log downloaded
through the API; the bot of a seat, seeded with its recorded ``bot_seed``, then makes every
decision the log records, and another bot is caught at its first different one.
"""

from __future__ import annotations

import json
import random
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from arena.builtin.strategies import load
from arena.protocol import encode
from bots.models import Bot, BotVersion
from games.replay import state_at
from matches import services
from matches.models import Match
from matches.play import match_play

pytestmark = pytest.mark.django_db

SEED = 4_242_424_242


def version(name: str, builtin: str) -> BotVersion:
    bot = Bot.objects.create(owner=None, game="snag", name=name)
    return BotVersion.objects.create(
        bot=bot, number=1, builtin=builtin, content_hash=name, status=BotVersion.Status.READY
    )


@pytest.fixture
def logged(tmp_path: Path) -> tuple[Match, Path, list[dict]]:
    """A finished match of snag_heuristic (seat 0) and random (seat 1), its log downloaded."""
    match = services.match_create(game_id="snag", seed=SEED, options={"target": 15})
    services.match_seats_create(
        match=match, versions=[version("heu", "snag_heuristic"), version("rnd", "random")]
    )
    match_play(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    response = APIClient().get(f"/api/matches/{match.pk}/log/")
    assert response.status_code == 200
    path = tmp_path / "match.jsonl"
    path.write_bytes(response.content)
    events = [json.loads(line) for line in response.content.decode().splitlines()]
    return match, path, events


def replay(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("play", "--replay", str(path), *args, "--quiet", stdout=out)
    return out.getvalue()


def bot_seeds(events: list[dict]) -> list[int]:
    return [player["bot_seed"] for player in events[0]["payload"]["players"]]


def first_difference(events: list[dict], seat: int, strategy: str, seed: int, start: int = 1):
    """The number of the first decision from ``start`` on where ``strategy`` seeded ``seed``
    chooses otherwise than the log in ``seat`` (its decisions before ``start`` asked, then
    played as recorded), found by folding the log; None if there is none."""
    records = [(e["seq"], e["type"], e["payload"], e["hash"]) for e in events]
    decisions = [e["payload"] for e in events if e["type"] == "decision"]
    choose, rng = load(strategy), random.Random(seed)
    for number, decision in enumerate(decisions, start=1):
        if decision["seat"] != seat:
            continue
        observation = state_at(records, number - 1).observations[seat]
        chosen = choose(json.loads(encode({"o": observation}))["o"], rng)
        if number >= start and chosen != decision["action"]:
            return number
    return None


def test_the_log_downloads_as_json_lines_with_each_built_in_bots_seed(logged):
    match, _, events = logged
    response = APIClient().get(f"/api/matches/{match.pk}/log/")
    assert (
        response["Content-Disposition"] == f'attachment; filename="match-{match.pk}-public.jsonl"'
    )
    assert response["Content-Type"].startswith("application/x-ndjson")
    pages = APIClient().get(f"/api/matches/{match.pk}/events/", {"limit": 1000}).json()
    assert events == [
        {key: event[key] for key in ("seq", "type", "payload", "hash")}
        for event in pages["results"]
    ]
    seeds = bot_seeds(events)
    assert all(type(seed) is int and 0 <= seed < 2**53 for seed in seeds)
    assert seeds[0] != seeds[1]


def test_the_full_view_is_refused_while_the_deal_is_in_play(db):
    match = services.match_create(game_id="snag", seed=SEED, options={"target": 15})
    services.match_seats_create(
        match=match, versions=[version("a", "random"), version("b", "random")]
    )
    assert APIClient().get(f"/api/matches/{match.pk}/log/", {"view": "full"}).status_code == 403


def test_the_recorded_bot_with_its_recorded_seed_makes_every_decision_again(logged):
    match, path, events = logged
    output = replay(path, "--seat", "0", "snag_heuristic", "--bot-seed", str(bot_seeds(events)[0]))
    assert "no difference" in output, output
    decisions = sum(
        1 for event in events if event["type"] == "decision" and event["payload"]["seat"] == 0
    )
    assert f"seat 0's {decisions} decisions" in output
    assert f"scores {list(match.scores)}" in output.split("recorded:")[0]
    assert "(the same result)" in output


def test_the_random_seat_replays_too_with_its_seed(logged):
    _, path, events = logged
    output = replay(path, "--seat", "1", "random", "--bot-seed", str(bot_seeds(events)[1]))
    assert "no difference" in output and "(the same result)" in output, output


def test_the_built_in_bot_that_sat_there_replays_with_its_recorded_seed_unasked(logged):
    _, path, events = logged
    output = replay(path, "--seat", "1", "random")
    assert f"random: bot_seed {bot_seeds(events)[1]}, as recorded" in output
    assert "no difference" in output and "(the same result)" in output, output


def test_the_random_bot_with_another_seed_is_caught_where_its_choice_first_differs(logged):
    _, path, events = logged
    seed = bot_seeds(events)[1] + 1
    expected = first_difference(events, 1, "random", seed)
    assert expected is not None
    output = replay(path, "--seat", "1", "random", "--bot-seed", str(seed))
    assert f"first difference at decision {expected} (seat 1," in output, output


def test_another_bot_is_caught_at_its_first_different_decision(logged):
    _, path, events = logged
    seed = bot_seeds(events)[0]
    expected = first_difference(events, 0, "random", seed)
    assert expected is not None
    output = replay(path, "--seat", "0", "random", "--bot-seed", str(seed))
    assert f"first difference at decision {expected} (seat 0," in output, output
    assert "observation: {" in output
    assert "stopped: the bot chose otherwise" in output
    assert "winner:" not in output


def test_the_opponent_bot_plays_on_after_the_difference(logged):
    _, path, events = logged
    seed = bot_seeds(events)[0]
    expected = first_difference(events, 0, "random", seed)
    output = replay(path, "--seat", "0", "random", "--bot-seed", str(seed), "--opponent", "random")
    assert f"first difference at decision {expected} (seat 0," in output
    assert "winner: seat" in output and "recorded: winner" in output


def test_from_plays_the_recorded_actions_before_it(logged):
    _, path, events = logged
    seed = bot_seeds(events)[0]
    first = first_difference(events, 0, "random", seed)
    later = first_difference(events, 0, "random", seed, start=first + 1)
    output = replay(
        path, "--seat", "0", "random", "--bot-seed", str(seed), "--from", str(first + 1)
    )
    if later is None:
        assert "no difference" in output
    else:
        assert f"first difference at decision {later} (seat 0," in output, output
    assert "played as recorded" in output


def test_a_log_without_its_seed_or_a_seat_is_a_clear_error(logged, tmp_path):
    _, path, events = logged
    with pytest.raises(CommandError, match="--seat N BOT"):
        replay(path, "random")
    sealed = [dict(events[0], payload={**events[0]["payload"], "seed": None}), *events[1:]]
    withheld = tmp_path / "withheld.jsonl"
    withheld.write_text("".join(json.dumps(event) + "\n" for event in sealed))
    with pytest.raises(CommandError, match="withholds the match's seed"):
        replay(withheld, "--seat", "0", "random")
