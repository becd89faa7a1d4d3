"""The games and matches API: lists, a match, its event log, its replayed state."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from games.rules import GAMES
from matches.models import Match
from matches.selectors import match_decisions, match_event_count
from matches.services import match_create, match_seats_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def match(played_tournament):
    return Match.objects.filter(tournament_match__tournament=played_tournament).first()


def test_it_lists_every_game_with_its_options_and_defaults(api):
    body = api.get("/api/games/").json()
    assert [game["id"] for game in body] == list(GAMES)
    snag = next(game for game in body if game["id"] == "snag")
    assert {"name": "target", "default": 50}.items() <= snag["options"][0].items()


def test_an_unknown_game_is_a_404_naming_the_known_games(api):
    response = api.get("/api/games/bridge/")
    assert response.status_code == 404
    assert "snag" in response.json()["detail"]


def test_a_match_shows_its_seats_result_and_seed(api, match):
    body = api.get(f"/api/matches/{match.pk}/").json()
    assert body["status"] == "finished" and body["winner"] in (0, 1)
    assert [seat["seat"] for seat in body["seats"]] == [0, 1]
    assert body["seed"] == match.seed and body["rules_version"] == "1"


def test_a_missing_match_is_a_404(api, db):
    response = api.get("/api/matches/999999/")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_the_event_log_is_paginated_in_sequence_order(api, match):
    first = api.get(f"/api/matches/{match.pk}/events/?limit=10").json()
    second = api.get(f"/api/matches/{match.pk}/events/?limit=10&offset=10").json()
    assert first["count"] == match_event_count(match_id=match.pk)
    assert [e["seq"] for e in first["results"]] == list(range(10))
    assert [e["seq"] for e in second["results"]] == list(range(10, 20))
    assert first["results"][0]["type"] == "match_started"
    assert first["results"][1]["type"] == "shuffle"


def test_the_state_at_a_step_is_the_log_replayed_that_far(api, match):
    body = api.get(f"/api/matches/{match.pk}/state/?step=3").json()
    decisions = match_decisions(match=match)
    assert body["step"] == 3 and body["steps"] == len(decisions)
    assert body["last_decision"] == decisions[2]
    history = body["observations"]["0"]["history"]
    assert [entry["action"] for entry in history] == [d["action"] for d in decisions[:3]]


def test_the_last_step_shows_the_stored_result(api, match):
    steps = match_event_count(match_id=match.pk, type="decision")
    body = api.get(f"/api/matches/{match.pk}/state/?step={steps}").json()
    if match.result_reason == "played":
        assert (body["winner"], body["scores"]) == (match.winner, match.scores)


@pytest.mark.parametrize("step", ["-1", "x", "1.5", "100000"])
def test_a_bad_step_is_a_400_saying_why(api, match, step):
    response = api.get(f"/api/matches/{match.pk}/state/?step={step}")
    assert response.status_code == 400
    assert "step" in response.json()["detail"]


def test_a_match_not_started_has_no_state_yet_and_says_so(api, db):
    from matches.services import match_create

    pending = match_create(game_id="snag", seed=1)
    response = api.get(f"/api/matches/{pending.pk}/state/")
    assert response.status_code == 400
    assert "not started" in response.json()["detail"]["log"]


def test_hidden_cards_are_not_shown_while_a_match_runs(api, match):
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    body = api.get(f"/api/matches/{match.pk}/state/?step=1").json()
    assert body["observations"] is None


def test_the_openapi_schema_and_docs_page_are_served(api, db):
    schema = api.get("/api/schema/?format=json")
    assert schema.status_code == 200
    assert "/api/matches/{id}/state/" in schema.json()["paths"]
    assert api.get("/api/docs/").status_code == 200


def test_shuffle_orders_stay_hidden_while_a_match_runs(api, match):
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    events = api.get(f"/api/matches/{match.pk}/events/?limit=500").json()["results"]
    shuffles = [event for event in events if event["type"] == "shuffle"]
    assert shuffles and all(event["payload"]["order"] is None for event in shuffles)
    assert [event["payload"]["k"] for event in shuffles] == list(range(len(shuffles)))


def test_shuffle_orders_are_shown_once_the_match_is_over(api, match):
    events = api.get(f"/api/matches/{match.pk}/events/?limit=500").json()["results"]
    orders = [event["payload"]["order"] for event in events if event["type"] == "shuffle"]
    assert orders and all(len(order) == 52 for order in orders)


def test_stepping_through_a_whole_match_folds_its_log_once(api, match, monkeypatch):
    from matches import redaction, selectors

    selectors._steps_kept.clear()
    folds = []
    real_positions = redaction.decision_positions
    monkeypatch.setattr(
        redaction,
        "decision_positions",
        lambda records: folds.append(1) or real_positions(records),
    )
    steps = api.get(f"/api/matches/{match.pk}/state/").json()["steps"]

    bodies = [
        api.get(f"/api/matches/{match.pk}/state/", {"step": n}).json() for n in range(steps + 1)
    ]

    assert [body["step"] for body in bodies] == list(range(steps + 1))
    assert bodies[-1]["winner"] == match.winner
    assert len(folds) == 1


# Whether a deal is in play ---------------------------------------------------------------


@pytest.fixture
def twins_one_over(db) -> tuple[Match, Match]:
    """Two matches dealt from one seed, seats swapped: the first is over, its twin is not."""
    builtin = Bot.objects.create(game="snag", name="random")
    first = BotVersion.objects.create(bot=builtin, number=1, builtin="random", content_hash="1")
    second = BotVersion.objects.create(bot=builtin, number=2, builtin="random", content_hash="2")
    pair = []
    for seats in ([first, second], [second, first]):
        match = match_create(game_id="snag", seed=4242)
        match_seats_create(match=match, versions=seats)
        pair.append(match)
    Match.objects.filter(pk=pair[0].pk).update(status=Match.Status.FINISHED, winner=0)
    return pair[0], pair[1]


def deal_as_seen(match: Match) -> dict[str, dict]:
    """``deal_in_play`` and the seed of ``match`` in the public view, staff's full view
    and the match list."""
    staff = APIClient()
    staff.force_authenticate(User.objects.get_or_create(username="staff", is_staff=True)[0])
    listed = APIClient().get("/api/matches/").json()["results"]
    bodies = {
        "public": APIClient().get(f"/api/matches/{match.pk}/").json(),
        "full": staff.get(f"/api/matches/{match.pk}/", {"view": "full"}).json(),
        "list": next(body for body in listed if body["id"] == match.pk),
    }
    return {name: {"in_play": b["deal_in_play"], "seed": b["seed"]} for name, b in bodies.items()}


def test_every_view_says_a_deal_is_in_play_while_its_twin_is_unfinished(twins_one_over):
    over, _ = twins_one_over

    seen = deal_as_seen(over)

    assert {name: view["in_play"] for name, view in seen.items()} == dict.fromkeys(seen, True)
    assert seen["full"]["seed"] == over.seed, "the full view shows the seed all the same"
    assert seen["public"]["seed"] is None and seen["list"]["seed"] is None


def test_every_view_says_a_deal_is_out_of_play_once_its_twin_is_over(twins_one_over):
    over, twin = twins_one_over
    Match.objects.filter(pk=twin.pk).update(status=Match.Status.FINISHED, winner=1)

    seen = deal_as_seen(over)

    assert {name: view["in_play"] for name, view in seen.items()} == dict.fromkeys(seen, False)
    assert {view["seed"] for view in seen.values()} == {over.seed}


# Matches of the caller's bots (?mine=true) ---------------------------------------------------


def list_matches(user, query: str):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client.get(f"/api/matches/{query}")


@pytest.fixture
def alices_matches(db) -> tuple[User, list[Match]]:
    """Alice's bot against a built-in bot twice (once in each seat); two matches without her."""
    alice = User.objects.create_user("alice")
    mine = Bot.objects.create(owner=alice, game="snag", name="alices")
    builtin = Bot.objects.create(game="snag", name="random")
    version = BotVersion.objects.create(bot=mine, number=1, content_hash="a" * 64)
    other = BotVersion.objects.create(
        bot=builtin, number=1, builtin="random", content_hash="b" * 64
    )
    matches = []
    for seats in ([version, other], [other, other], [other, version], [other, other]):
        match = match_create(game_id="snag", seed=len(matches))
        match_seats_create(match=match, versions=seats)
        matches.append(match)
    return alice, [matches[0], matches[2]]


def test_mine_lists_the_matches_where_a_version_of_the_caller_s_bots_sits(alices_matches):
    alice, hers = alices_matches

    body = list_matches(alice, "?mine=true").data

    assert [match["id"] for match in body["results"]] == [hers[1].pk, hers[0].pk]
    assert body["count"] == 2


def test_without_mine_every_match_is_listed(alices_matches):
    alice, _ = alices_matches
    assert list_matches(alice, "?mine=false").data["count"] == Match.objects.count() == 4


def test_mine_needs_a_login_and_a_true_or_false(alices_matches):
    alice, _ = alices_matches
    assert list_matches(None, "?mine=true").status_code == 401
    refused = list_matches(alice, "?mine=yes")
    assert refused.status_code == 400 and "mine" in refused.data["detail"]
