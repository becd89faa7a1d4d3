"""The tournaments read API: list with filters, detail, standings, matches."""

from __future__ import annotations

import hashlib

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    return APIClient()


def test_a_finished_round_robin_is_listed_and_filterable(api, played_tournament):
    body = api.get(
        "/api/tournaments/?game=snag&status=finished&tournament_format=round_robin"
    ).json()
    assert [t["id"] for t in body["results"]] == [played_tournament.pk]
    assert api.get("/api/tournaments/?status=draft").json()["count"] == 0
    assert api.get("/api/tournaments/?tournament_format=swiss").json()["count"] == 0


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("game=bridge", "game"),
        ("status=done", "status"),
        ("tournament_format=x", "tournament_format"),
    ],
)
def test_bad_filters_are_a_400_naming_the_parameter(api, db, query, named):
    response = api.get(f"/api/tournaments/?{query}")
    assert response.status_code == 400
    assert named in response.json()["detail"]


def test_the_detail_lists_entrants_and_match_counts(api, played_tournament):
    body = api.get(f"/api/tournaments/{played_tournament.pk}/").json()
    assert [e["bot"] for e in body["entrants"]] == ["random", "heuristic"]
    assert body["matches"]["finished"] == 2 and body["matches"]["pending"] == 0


def test_a_finished_tournament_shows_its_seed_and_the_commitment_checks_out(api, played_tournament):
    body = api.get(f"/api/tournaments/{played_tournament.pk}/").json()
    assert body["secret"] == "42"
    assert hashlib.sha256(body["secret"].encode()).hexdigest() == body["secret_sha256"]


# The standings are now paginated like every list, and count duplicate sets (one set of two
# matches here), not single matches: a set is the unit a tournament pairs and scores.
def test_standings_rank_the_entrants_from_the_set_results(api, played_tournament):
    body = api.get(f"/api/tournaments/{played_tournament.pk}/standings/").json()
    rows = body["results"]
    assert body["count"] == 2
    assert [row["rank"] for row in rows] == [1, 2]
    assert all(row["played"] == 1 for row in rows)
    assert sum(row["score"] for row in rows) == 1.0
    assert rows[0]["score"] >= rows[1]["score"]
    assert rows[0]["tie_breaks"] == [
        "head_to_head",
        "sonneborn_berger",
        "points_difference",
        "points_for",
    ]


def test_the_matches_of_a_pair_share_a_seed_with_seats_swapped(api, played_tournament):
    matches = api.get(f"/api/tournaments/{played_tournament.pk}/matches/").json()["results"]
    first, second = matches
    assert first["seed"] == second["seed"]
    assert [s["bot"] for s in first["seats"]] == [s["bot"] for s in reversed(second["seats"])]


def test_a_missing_tournament_is_a_404(api, db):
    assert api.get("/api/tournaments/424242/standings/").status_code == 404
