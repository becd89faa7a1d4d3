"""The ladder, challenge and version-test API."""

from __future__ import annotations

import pytest
from django.db.models import Q
from rest_framework.test import APIClient

from ladder.services import challenge_create, ladder_for, ladder_tick, version_test_create
from matches.models import Match
from tournaments.config import TournamentConfig
from tournaments.formats import VERSION_TEST_BATCH_SETS
from tournaments.models import Pairing, Tournament
from tournaments.ratings.models import RatingUpdate
from tournaments.services import tournament_cancel, tournament_create
from tournaments.sprt import ELO_LIMIT, SprtParameters, elo_of_score

from .conftest import bots_of, play_pending, settled_challenge, win_until_decided

#: z squared of a 95% interval.
Z2 = 1.96**2


@pytest.fixture
def client_of():
    def client(user=None) -> APIClient:
        api = APIClient()
        if user is not None:
            api.force_authenticate(user)
        return api

    return client


def ladder_played(*owners, target: int, ticks: int = 3) -> Tournament:
    """Snag's ladder with two bots of each owner, played ``ticks`` ticks to ``target``."""
    for owner in owners:
        bots_of(owner, 2)
    ladder = ladder_for(game_id="snag")
    Tournament.objects.filter(pk=ladder.pk).update(options={"target": target})
    for _ in range(ticks):
        ladder_tick()
        play_pending(ladder)
    return ladder


def test_the_ladder_of_a_game_lists_its_versions_by_rating(alice, bob, client_of, settings):
    settings.BAIZE_LADDER_SETS_IN_FLIGHT = 10
    ladder_played(alice, bob, target=10)

    body = client_of().get("/api/ladder/snag/").json()

    assert body["game"] == "snag" and len(body["rows"]) == 4
    assert [row["rank"] for row in body["rows"]] == [1, 2, 3, 4]
    conservative = [row["conservative"] for row in body["rows"]]
    assert conservative == sorted(conservative, reverse=True)
    first = body["rows"][0]
    assert first["low"] < first["mu"] < first["high"] and first["sets"] >= 1
    assert first["version"]["owner"] in ("alice", "bob") and first["placing"] is True
    sets = client_of().get("/api/ladder/snag/sets/").json()
    assert sets["count"] >= 4
    assert {"first", "second", "outcome", "finished_at"} <= set(sets["results"][0])


def test_an_unknown_game_has_no_ladder(client_of, db):
    response = client_of().get("/api/ladder/chess/")
    assert response.status_code == 400
    assert "unknown game" in str(response.json()["detail"])


def test_an_author_challenges_and_reads_the_result(alice, bob, client_of):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    response = client_of(alice).post(
        "/api/challenges/", {"version": mine.pk, "opponent": theirs.pk, "sets": 2}, format="json"
    )
    assert response.status_code == 201, response.json()
    challenge_id = response.json()["id"]
    Tournament.objects.filter(pk=challenge_id).update(options={"target": 10})
    play_pending(Tournament.objects.get(pk=challenge_id))

    body = client_of().get(f"/api/challenges/{challenge_id}/").json()

    assert body["status"] == "finished"
    assert body["first"]["version_id"] == mine.pk and body["second"]["version_id"] == theirs.pk
    result = body["result"]
    assert result["sets"] == result["sets_planned"] == 2
    assert result["wins"] + result["draws"] + result["losses"] == 2
    low, high = result["score_interval"]
    assert low <= result["score"] <= high
    # Each set's matches, read from the matches themselves, agree with the set's row.
    for played in body["sets"]:
        matches = Match.objects.filter(pk__in=played["match_ids"]).prefetch_related("seats")
        won = [m for m in matches if m.winner is not None and _seat_version(m) == mine.pk]
        assert played["status"] == "finished" and len(played["match_ids"]) == 2
        assert played["matches_won"] == len(won)
    mine_only = client_of(alice).get("/api/challenges/?mine=true").json()
    assert [c["id"] for c in mine_only["results"]] == [challenge_id]
    assert client_of(bob).get("/api/challenges/?mine=true").json()["count"] == 0


def _seat_version(match: Match) -> int:
    return next(seat.version_id for seat in match.seats.all() if seat.seat == match.winner)


@pytest.mark.parametrize("challenger_seed", [1, 2])
@pytest.mark.parametrize(("won", "sets"), [(False, 10), (True, 5)])
def test_every_figure_of_a_challenge_is_from_the_challengers_side_whichever_seed_it_has(
    alice, bob, client_of, challenger_seed, won, sets
):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    challenge = settled_challenge(mine, theirs, challenger_seed=challenger_seed, won=won, sets=sets)

    body = client_of().get(f"/api/challenges/{challenge.pk}/").json()

    assert body["first"]["version_id"] == mine.pk and body["second"]["version_id"] == theirs.pk
    result = body["result"]
    won_sets = sets if won else 0
    assert (result["wins"], result["draws"], result["losses"]) == (won_sets, 0, sets - won_sets)
    my_points, their_points = (40, 5) if won else (5, 40)
    assert (result["first_points"], result["second_points"]) == (
        sets * my_points,
        sets * their_points,
    )
    assert result["score"] == (1.0 if won else 0.0)
    assert [s["result"] for s in body["sets"]] == ["won" if won else "lost"] * sets
    assert {
        (s["opponent"]["version_id"], s["matches_won"], s["matches_lost"], s["points"])
        for s in body["sets"]
    } == {(theirs.pk, 2 if won else 0, 0 if won else 2, my_points)}
    # Wilson: at a score of 1 the interval runs from n / (n + z^2) to 1 (at 0, mirrored),
    # and the Elo range's open end is cut at the limit.
    inner = sets / (sets + Z2) if won else Z2 / (sets + Z2)
    low, high = result["score_interval"]
    elo_low, elo_high = result["elo_interval"]
    if won:
        assert (low, high) == (pytest.approx(inner), 1.0)
        assert (elo_low, elo_high) == (pytest.approx(elo_of_score(inner)), ELO_LIMIT)
        assert elo_low > 0
    else:
        assert (low, high) == (0.0, pytest.approx(inner))
        assert (elo_low, elo_high) == (-ELO_LIMIT, pytest.approx(elo_of_score(inner)))
        assert elo_high < 0


def test_five_sets_won_of_five_keep_a_score_interval_wider_than_a_point(alice, bob, client_of):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    challenge = settled_challenge(mine, theirs, challenger_seed=2, won=True, sets=5)

    result = client_of().get(f"/api/challenges/{challenge.pk}/").json()["result"]

    assert result["score_interval"] == [pytest.approx(0.5655, abs=1e-4), 1.0]
    assert result["elo_interval"] == [pytest.approx(45.8, abs=0.1), 800.0]


@pytest.mark.parametrize(
    ("payload", "status", "needle"),
    [
        ({"sets": 0}, 400, "sets"),
        ({"sets": 51}, 400, "sets"),
        ({"version": 999999}, 400, "no bot version 999999"),
        ({"swap": True}, 400, "not one of your bots"),
        ({"rounds": 3}, 400, "unknown field: a challenge takes only version, opponent, sets"),
    ],
)
def test_a_bad_challenge_gets_a_clear_400(alice, bob, client_of, payload, status, needle):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    body = {"version": mine.pk, "opponent": theirs.pk, "sets": 2}
    if payload.pop("swap", False):
        body["version"], body["opponent"] = theirs.pk, mine.pk
    response = client_of(alice).post("/api/challenges/", {**body, **payload}, format="json")
    assert response.status_code == status
    assert needle in str(response.json()["detail"])
    assert not Tournament.objects.filter(format="challenge").exists()


def test_challenging_needs_a_login_and_the_daily_limit_answers_429(alice, bob, client_of, settings):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    body = {"version": mine.pk, "opponent": theirs.pk, "sets": 5}
    assert client_of().post("/api/challenges/", body, format="json").status_code == 401
    assert client_of().get("/api/challenges/?mine=true").status_code == 401
    settings.BAIZE_AUTHOR_SETS_PER_DAY = 8
    assert client_of(alice).post("/api/challenges/", body, format="json").status_code == 201
    refused = client_of(alice).post("/api/challenges/", body, format="json")
    assert refused.status_code == 429
    assert refused.json()["error"] == "daily_limit"


def test_an_author_starts_a_version_test_and_follows_it(alice, client_of):
    candidate, baseline = bots_of(alice, 2)
    response = client_of(alice).post(
        "/api/version-tests/",
        {"candidate": candidate.pk, "baseline": baseline.pk, "elo1": 100},
        format="json",
    )
    assert response.status_code == 201, response.json()
    test_id = response.json()["id"]
    sprt = response.json()["sprt"]
    assert (sprt["elo0"], sprt["elo1"], sprt["verdict"]) == (0, 100, "pending")
    assert sprt["llr"] == 0 and str(sprt["llr"]) == "0.0", "exactly 0 before any set"
    Tournament.objects.filter(pk=test_id).update(options={"target": 10})
    play_pending(Tournament.objects.get(pk=test_id))

    body = client_of().get(f"/api/version-tests/{test_id}/").json()

    assert body["status"] == "finished" and body["sprt"]["verdict"] == "better"
    assert body["sprt"]["llr"] >= body["sprt"]["upper_bound"]


def test_a_version_test_with_elo1_not_above_elo0_is_refused(alice, client_of):
    candidate, baseline = bots_of(alice, 2)
    response = client_of(alice).post(
        "/api/version-tests/",
        {"candidate": candidate.pk, "baseline": baseline.pk, "elo0": 10, "elo1": 5},
        format="json",
    )
    assert response.status_code == 400
    assert "elo1" in response.json()["detail"]


def test_an_author_tests_a_version_against_a_pool_of_other_authors_versions(alice, bob, client_of):
    [candidate] = bots_of(alice, 1)
    pool = bots_of(bob, 3)
    response = client_of(alice).post(
        "/api/version-tests/",
        {"candidate": candidate.pk, "pool": [version.pk for version in pool]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["first"]["version_id"] == candidate.pk and body["second"] is None
    assert [opponent["version_id"] for opponent in body["opponents"]] == [v.pk for v in pool]
    assert body["name"] == f"Test: {candidate.bot.name} v1 v a pool of 3"


@pytest.mark.parametrize(
    ("extra", "needle"),
    [({}, "either baseline or pool"), ({"pool": [1]}, "pool"), ({"pool": [1] * 9}, "pool")],
)
def test_a_version_test_with_neither_baseline_nor_a_good_pool_is_refused(
    alice, client_of, extra, needle
):
    [candidate] = bots_of(alice, 1)
    response = client_of(alice).post(
        "/api/version-tests/", {"candidate": candidate.pk, **extra}, format="json"
    )
    assert response.status_code == 400
    assert needle in str(response.json()["detail"])
    assert not Tournament.objects.exists()


def test_the_tournament_list_shows_organised_tournaments_unless_asked_for_another_kind(
    alice, bob, client_of
):
    [mine, other_mine] = bots_of(alice, 2)
    [theirs] = bots_of(bob, 1)
    author = client_of(alice)
    author.post(
        "/api/challenges/", {"version": mine.pk, "opponent": theirs.pk, "sets": 1}, format="json"
    )
    author.post(
        "/api/version-tests/", {"candidate": mine.pk, "baseline": other_mine.pk}, format="json"
    )
    ladder_for(game_id="snag")
    cup = tournament_create(config=TournamentConfig(name="Cup", game="snag"))

    def listed(query: str = "") -> list[tuple[str, str]]:
        body = client_of().get(f"/api/tournaments/?{query}").json()
        return sorted((t["format"], t["kind"]) for t in body["results"])

    assert listed() == listed("kind=organised") == [("round_robin", "organised")]
    assert listed("kind=ladder") == [("ladder", "ladder")]
    assert listed("kind=challenge") == [("challenge", "challenge")]
    assert listed("kind=version_test") == [("version_test", "version_test")]
    assert listed("tournament_format=challenge") == [("challenge", "challenge")]
    assert listed("kind=all") == sorted(
        [("round_robin", "organised"), ("ladder", "ladder")]
        + [("challenge", "challenge"), ("version_test", "version_test")]
    )
    assert listed("kind=organised&tournament_format=ladder") == []
    assert client_of().get(f"/api/tournaments/{cup.pk}/").json()["kind"] == "organised"


def test_an_unknown_kind_is_a_400_naming_the_kinds(client_of, db):
    response = client_of().get("/api/tournaments/?kind=cup")
    assert response.status_code == 400
    assert "version_test" in response.json()["detail"]["kind"]


def test_the_set_a_decided_version_test_did_not_play_reads_not_played(alice, client_of):
    candidate, baseline = bots_of(alice, 2)
    test = version_test_create(
        user=alice, candidate=candidate, baseline=baseline, parameters=SprtParameters(elo1=150)
    )
    win_until_decided(test, candidate)

    body = client_of().get(f"/api/version-tests/{test.pk}/").json()

    assert body["sprt"]["verdict"] == "better" and body["result"]["wins"] == body["result"]["sets"]
    finished = body["result"]["sets"]
    unplayed = len(body["sets"]) - finished
    assert unplayed > 0 and len(body["sets"]) % VERSION_TEST_BATCH_SETS == 0, "a batch cut short"
    assert [s["status"] for s in body["sets"]] == ["finished"] * finished + [
        "not_played"
    ] * unplayed
    dropped = body["sets"][finished]
    assert dropped["number"] == finished + 1 and dropped["result"] == ""
    assert dropped["reason"] == "the test had decided before this set was played"
    assert dropped["match_ids"] == [], "its matches were dropped unplayed: nothing to link"
    [pairing] = client_of().get(f"/api/tournaments/{test.pk}/pairings/").json()["results"]
    assert [s["status"] for s in pairing["sets"]] == [s["status"] for s in body["sets"]]


def test_the_sets_of_a_cancelled_challenge_read_not_played_with_the_reason(alice, bob, client_of):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    challenge = challenge_create(user=alice, version=mine, opponent=theirs, sets=2)
    tournament_cancel(tournament=challenge, reason="asked by mistake")

    body = client_of().get(f"/api/challenges/{challenge.pk}/").json()

    assert [(s["status"], s["reason"], s["match_ids"]) for s in body["sets"]] == [
        ("not_played", "cancelled: asked by mistake", [])
    ] * 2
    assert body["result"]["sets"] == 0 and body["result"]["score"] is None


def test_a_version_test_naming_an_unknown_field_is_refused_by_name_and_creates_nothing(
    alice, client_of
):
    candidate, baseline = bots_of(alice, 2)
    body = {"candidate": candidate.pk, "baseline": baseline.pk, "elo_0": 5}

    response = client_of(alice).post("/api/version-tests/", body, format="json")

    assert response.status_code == 400
    detail = response.json()["detail"]
    assert list(detail) == ["elo_0"]
    assert detail["elo_0"][0].startswith("unknown field: a version test takes only candidate")
    assert not Tournament.objects.filter(format="version_test").exists()


def test_the_ladder_tables_sets_are_each_versions_rated_sets_several_to_a_pairing(
    alice, bob, client_of, settings
):
    settings.BAIZE_LADDER_SETS_IN_FLIGHT = 12
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    ladder = ladder_played(alice, bob, target=5)

    rows = client_of().get("/api/ladder/snag/").json()["rows"]

    rated = RatingUpdate.objects.filter(duplicate_set__pairing__tournament=ladder)
    assert rated.count() > Pairing.objects.filter(tournament=ladder).count(), "3 sets a pairing"
    for row in rows:
        version = row["version"]["version_id"]
        sides = Q(duplicate_set__pairing__first__version_id=version) | Q(
            duplicate_set__pairing__second__version_id=version
        )
        assert row["sets"] == rated.filter(sides).count() > 0, row


def test_placement_ends_after_the_placement_sets_not_after_as_many_pairings(
    alice, client_of, settings
):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    settings.BAIZE_LADDER_PLACEMENT_SETS = 3
    ladder_played(alice, target=5, ticks=1)

    rows = client_of().get("/api/ladder/snag/").json()["rows"]

    assert [(row["sets"], row["placing"]) for row in rows] == [(3, False), (3, False)]
