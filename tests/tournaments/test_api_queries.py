"""Every list costs a fixed number of queries, however many rows it shows (no N+1)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from .conftest import decide_all, play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db

ENDPOINTS = ["", "entrants/", "rounds/", "pairings/", "bracket/", "standings/", "matches/"]


def by_seed(pairing):
    return (
        (2, 0, (60, 10))
        if pairing.first.bracket_position < pairing.second.bracket_position
        else (0, 2, (10, 60))
    )


def queries(url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = APIClient().get(url)
    assert response.status_code == 200, response.content
    return len(captured)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_tournament_endpoint_costs_the_same_for_4_or_12_entrants(endpoint):
    small, large = (
        decide_all(start(tournament_with(strategy_bots(n), format="double_elimination")), by_seed)
        for n in (4, 12)
    )
    url = "/api/tournaments/{}/" + endpoint + "?limit=200"
    assert queries(url.format(small.pk)) == queries(url.format(large.pk))


def test_the_leaderboard_and_a_rating_history_cost_the_same_for_few_or_many_sets():
    few, many = strategy_bots(2), strategy_bots(3)
    play_all(start(tournament_with(few)))
    play_all(start(tournament_with(many, sets_per_pair=2)))
    history = "/api/ratings/bots/{}/"
    assert queries(history.format(few[0].bot_id)) == queries(history.format(many[0].bot_id))
    assert queries("/api/ratings/?game=snag&limit=2") == queries("/api/ratings/?game=snag")
