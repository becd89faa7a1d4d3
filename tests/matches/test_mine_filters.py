"""``GET /api/matches/?mine=true`` narrowed by version, opponent, kind and result, each read
from the side of the caller's seat."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from bots.models import Bot, BotVersion
from ladder.services import challenge_create
from matches.models import Match
from matches.services import match_create, match_seats_create
from tests.ladder.conftest import bots_of
from tests.tournaments.conftest import start, tournament_with

pytestmark = pytest.mark.django_db


def ids(user, query: str) -> set[int]:
    response = listed(user, query)
    assert response.status_code == 200, response.json()
    return {match["id"] for match in response.json()["results"]}


def listed(user, query: str):
    client = APIClient()
    client.force_authenticate(user)
    return client.get(f"/api/matches/?limit=100&{query}")


def version_of(bot: Bot, number: int = 1) -> BotVersion:
    return BotVersion.objects.create(
        bot=bot, number=number, content_hash=f"{bot.pk}-{number}", status="ready"
    )


def played(seats, winner, status=Match.Status.FINISHED) -> Match:
    match = match_create(game_id="snag", seed=Match.objects.count())
    match_seats_create(match=match, versions=seats)
    Match.objects.filter(pk=match.pk).update(status=status, winner=winner)
    return match


@pytest.fixture
def field(db):
    alice, bob = User.objects.create_user("alice"), User.objects.create_user("bob")
    hers, also_hers = (Bot.objects.create(owner=alice, game="snag", name=n) for n in "AC")
    bobs = Bot.objects.create(owner=bob, game="snag", name="B")
    builtin = Bot.objects.create(game="snag", name="random")
    v1, v2, c1 = version_of(hers, 1), version_of(hers, 2), version_of(also_hers)
    b1, r1 = version_of(bobs), version_of(builtin)
    matches = {
        "won_v_bob": played([v1, b1], 0),
        "lost_v_bob": played([b1, v1], 0),
        "drawn_v_random": played([r1, v2], None),
        "pending_v_random": played([v2, r1], None, Match.Status.PENDING),
        "not_hers": played([b1, r1], 1),
        "her_own": played([v1, c1], 1),  # C (seat 1) beat A v1 (seat 0)
    }
    pks = {name: match.pk for name, match in matches.items()}
    return alice, {"v1": v1, "v2": v2, "bob": bobs, "random": builtin, "C": also_hers}, pks


def test_each_filter_reads_from_the_caller_s_seat(field):
    alice, things, m = field
    v1, v2 = things["v1"].pk, things["v2"].pk

    assert ids(alice, f"mine=true&version={v1}") == {m["won_v_bob"], m["lost_v_bob"], m["her_own"]}
    assert ids(alice, f"mine=true&version={v2}") == {m["drawn_v_random"], m["pending_v_random"]}
    assert ids(alice, f"mine=true&opponent={things['bob'].pk}") == {m["won_v_bob"], m["lost_v_bob"]}
    assert ids(alice, f"mine=true&opponent={things['random'].pk}") == {
        m["drawn_v_random"],
        m["pending_v_random"],
    }
    # Her own two bots: whichever seat fits.
    assert ids(alice, f"mine=true&opponent={things['C'].pk}") == {m["her_own"]}
    assert ids(alice, "mine=true&result=won") == {m["won_v_bob"], m["her_own"]}
    assert ids(alice, "mine=true&result=lost") == {m["lost_v_bob"], m["her_own"]}
    assert ids(alice, "mine=true&result=drawn") == {m["drawn_v_random"]}
    assert ids(alice, f"mine=true&version={v1}&result=won") == {m["won_v_bob"]}
    assert ids(alice, f"mine=true&version={v1}&opponent={things['C'].pk}&result=lost") == {
        m["her_own"]
    }
    assert ids(alice, f"mine=true&opponent={things['bob'].pk}&result=drawn") == set()


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("mine=true&version=abc", "version"),
        ("mine=true&version=-3", "version"),
        ("mine=true&opponent=x", "opponent"),
        ("mine=true&opponent=99999999", "opponent"),
        ("mine=true&result=win", "result"),
        ("mine=true&kind=cup", "kind"),
        ("version=1", "version"),
        ("result=won", "result"),
        ("mine=false&kind=ladder", "kind"),
    ],
)
def test_a_bad_filter_is_a_400_naming_it(field, query, parameter):
    alice, _, _ = field
    response = listed(alice, query)
    assert response.status_code == 400
    assert parameter in response.json()["detail"]


def test_another_s_version_is_refused(field):
    alice, _, _ = field
    bobs_version = BotVersion.objects.get(bot__name="B")
    response = listed(alice, f"mine=true&version={bobs_version.pk}")
    assert response.status_code == 400 and "version" in response.json()["detail"]


def test_kind_keeps_the_matches_of_that_kind_of_tournament(alice, bob):
    [mine] = bots_of(alice, 1)
    theirs = bots_of(bob, 2)
    challenge = challenge_create(user=alice, version=mine, opponent=theirs[0], sets=1)
    organised = start(tournament_with([mine, *theirs]))

    challenged = ids(alice, "mine=true&kind=challenge")
    in_organised = ids(alice, "mine=true&kind=organised")

    assert challenged == set(
        Match.objects.filter(tournament_match__tournament=challenge).values_list("pk", flat=True)
    )
    assert len(challenged) == 2
    hers = Match.objects.filter(
        tournament_match__tournament=organised, seats__version=mine
    ).values_list("pk", flat=True)
    assert in_organised == set(hers) and in_organised
    assert ids(alice, "mine=true&kind=ladder") == set()
    assert ids(alice, f"mine=true&kind=challenge&opponent={theirs[1].bot_id}") == set()


def test_a_match_names_its_tournament_and_that_tournament_s_kind(alice, bob):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    challenge = challenge_create(user=alice, version=mine, opponent=theirs, sets=1)
    played = Match.objects.filter(tournament_match__tournament=challenge).first()
    alone = match_create(game_id="snag", seed=5)
    match_seats_create(match=alone, versions=[mine, theirs])
    client = APIClient()

    shown = client.get(f"/api/matches/{played.pk}/").json()["tournament"]
    listed_ones = {m["id"]: m["tournament"] for m in client.get("/api/matches/").json()["results"]}

    expected = {"id": challenge.pk, "name": challenge.name, "format": "challenge"}
    assert shown == {**expected, "kind": "challenge"}
    assert listed_ones[played.pk] == shown
    assert client.get(f"/api/matches/{alone.pk}/").json()["tournament"] is None
    assert listed_ones[alone.pk] is None
