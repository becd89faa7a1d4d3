"""The ratings leaderboard per game and a bot's rating history."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from tournaments.ratings.models import Rating
from tournaments.ratings.services import ratings_reset

from ..conftest import play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def rated(db):
    versions = strategy_bots(3)
    play_all(start(tournament_with(versions, sets_per_pair=2)))
    return versions


def test_the_leaderboard_ranks_the_game_by_conservative_rating(api, rated):
    body = api.get("/api/ratings/?game=snag").json()
    rows = body["results"]
    assert body["count"] == 3 and [row["rank"] for row in rows] == [1, 2, 3]
    ratings = [row["rating"] for row in rows]
    assert ratings == sorted(ratings, reverse=True)
    for row in rows:
        assert row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"])
        assert row["sets"] == 4 and row["game"] == "snag"
    paged = api.get("/api/ratings/?game=snag&limit=1&offset=1").json()["results"]
    assert [row["rank"] for row in paged] == [2]


def test_the_leaderboard_needs_a_known_game_and_filters_by_sets(api, rated):
    assert api.get("/api/ratings/").status_code == 400
    assert api.get("/api/ratings/?game=bridge").status_code == 400
    assert api.get("/api/ratings/?game=spades").json()["count"] == 0
    assert api.get("/api/ratings/?game=snag&min_sets=5").json()["count"] == 0


def test_a_bots_rating_history_lists_each_set_in_order(api, rated):
    bot = rated[0].bot
    body = api.get(f"/api/ratings/bots/{bot.pk}/").json()
    changes = body["results"]
    assert body["count"] == 4
    assert [c["seq"] for c in changes] == sorted(c["seq"] for c in changes)
    for before, after in zip(changes, changes[1:], strict=False):
        assert after["mu_before"] == before["mu_after"]
    assert changes[0]["mu_before"] == 25.0
    last = changes[-1]
    rating = Rating.objects.get(version=rated[0])
    assert (last["mu_after"], last["sigma_after"]) == (rating.mu, rating.sigma)
    assert {c["outcome"] for c in changes} <= {"win", "loss", "draw"}
    assert all(c["counted"] and c["set"].count("/") == 1 for c in changes)
    assert all(c["opponent"].endswith(" v1") for c in changes)


def test_the_history_survives_a_reset_marked_as_no_longer_counted(api, rated):
    ratings_reset(game_id="snag", user=User.objects.create_user("a"), reason="season")
    changes = api.get(f"/api/ratings/bots/{rated[0].bot_id}/?game=snag&version=1").json()
    assert changes["count"] == 4 and not any(c["counted"] for c in changes["results"])
    assert api.get(f"/api/ratings/bots/{rated[0].bot_id}/?version=2").json()["count"] == 0


def test_the_history_of_a_missing_bot_is_a_404(api, db):
    assert api.get("/api/ratings/bots/999999/").status_code == 404
