"""Rounds, pairings, the bracket as data and the standings of a running elimination."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from .conftest import decide_all, play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db


def by_seed(pairing):
    return (
        (2, 0, (60, 10))
        if pairing.first.bracket_position < pairing.second.bracket_position
        else (0, 2, (10, 60))
    )


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def double_elimination(db):
    tournament = start(tournament_with(strategy_bots(6), format="double_elimination"))
    return decide_all(tournament, by_seed)


def test_the_bracket_lists_every_pairing_with_its_sources_and_byes(api, double_elimination):
    url = f"/api/tournaments/{double_elimination.pk}/bracket/"
    body = api.get(f"{url}?limit=100").json()
    bracket = {pairing["key"]: pairing for pairing in body["results"]}
    assert body["count"] == len(bracket) == 4 + 2 + 1 + 2 + 2 + 1 + 1 + 2
    assert bracket["W1-1"]["sources"] == ["seed 1", "seed 8"]
    assert bracket["W1-1"]["status"] == "walkover" and bracket["W1-1"]["second"] is None
    assert bracket["W1-2"]["status"] == "played" and bracket["W1-2"]["pairing"] is not None
    assert bracket["L2-1"]["sources"] == ["winner of L1-1", "loser of W2-2"]
    assert (
        bracket["GF"]["winner"]["bracket_position"] == 1 and bracket["GF2"]["status"] == "skipped"
    )
    losers = api.get(f"{url}?side=losers").json()
    assert {pairing["side"] for pairing in losers["results"]} == {"losers"}


def test_a_round_robin_has_no_bracket(api, played_tournament):
    response = api.get(f"/api/tournaments/{played_tournament.pk}/bracket/")
    assert response.status_code == 400 and "format" in response.json()["detail"]


def test_rounds_count_their_pairings_per_bracket_side(api, double_elimination):
    rows = api.get(f"/api/tournaments/{double_elimination.pk}/rounds/").json()["results"]
    assert {"bracket": "winners", "round": 1, "pairings": 2, "finished": 2} in rows
    assert {"bracket": "final", "round": 1, "pairings": 1, "finished": 1} in rows


def test_pairings_are_filtered_by_round_side_status_and_entrant(api, double_elimination):
    url = f"/api/tournaments/{double_elimination.pk}/pairings/"
    everything = api.get(f"{url}?limit=100").json()
    assert everything["count"] == 2 * 6 - 2
    pairing = everything["results"][0]
    assert set(pairing) >= {"key", "bracket", "round", "first", "second", "winner", "sets"}
    assert pairing["sets"][0]["status"] == "finished" and len(pairing["sets"]) == 1
    finals = api.get(f"{url}?bracket=final").json()["results"]
    assert [p["key"] for p in finals] == ["GF"]
    seed_one = next(p["first"]["id"] for p in finals)
    mine = api.get(f"{url}?entrant={seed_one}&limit=100").json()["results"]
    assert all(seed_one in (p["first"]["id"], (p["second"] or {}).get("id")) for p in mine)
    # Seeds 1 and 2 had byes, so both first losers-bracket pairings were walkovers.
    assert api.get(f"{url}?round=1&bracket=losers").json()["count"] == 0
    assert api.get(f"{url}?round=2&bracket=losers").json()["count"] == 2
    assert api.get(f"{url}?status=playing").json()["count"] == 0
    assert api.get(f"{url}?round=one").status_code == 400


def test_elimination_standings_rank_by_place_first(api, double_elimination):
    rows = api.get(f"/api/tournaments/{double_elimination.pk}/standings/").json()["results"]
    assert [row["place"] for row in rows] == [1, 2, 3, 4, 5, 5]
    assert [row["bracket_position"] for row in rows][:4] == [1, 2, 3, 4]
    assert rows[0]["tie_breaks"] == ["points_difference", "points_for"]


def test_a_pairing_shows_its_result_and_winner_once_decided_and_no_set_seed_before():
    tournament = start(tournament_with(strategy_bots(2), sets_per_pair=2))
    api = APIClient()
    url = f"/api/tournaments/{tournament.pk}/pairings/"

    [playing] = api.get(url).json()["results"]
    assert all(duplicate_set["seed"] is None for duplicate_set in playing["sets"])
    assert playing["winner"] is None and playing["result"]["decided"] is False

    play_all(tournament)
    [decided] = api.get(url).json()["results"]

    result = decided["result"]
    assert result["decided"] is True and result["sets_finished"] == 2
    assert all(duplicate_set["seed"] is not None for duplicate_set in decided["sets"])
    if result["first"] != result["second"]:
        leader = decided["first"] if result["first"] > result["second"] else decided["second"]
        assert decided["winner"] == leader["id"]
    else:
        assert decided["winner"] is None
