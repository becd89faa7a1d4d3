"""The standings API served per version of its tournament: ETags, 304s, and invalidation."""

from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

from tournaments.models import DuplicateSet, TournamentMatch
from tournaments.standings_cache import VERSION_SECONDS, tournament_version_forget
from tournaments.tasks import tournament_match_play

from .conftest import settle_without_playing, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def running():
    """A three-bot round robin just started: three sets to play, none finished."""
    return start(tournament_with(strategy_bots(3)))


def standings_url(tournament) -> str:
    return f"/api/tournaments/{tournament.pk}/standings/"


def sets_played(response) -> int:
    return sum(row["played"] for row in response.json()["results"]) // 2


def play_one_set(tournament) -> None:
    duplicate_set = DuplicateSet.objects.filter(pairing__tournament=tournament).first()
    links = TournamentMatch.objects.filter(duplicate_set=duplicate_set)
    for match_id in links.values_list("match_id", flat=True):
        tournament_match_play(match_id)


def test_an_unchanged_tournament_answers_a_revalidation_with_304(api, running):
    first = api.get(standings_url(running))
    again = api.get(standings_url(running), HTTP_IF_NONE_MATCH=first["ETag"])
    assert first.status_code == 200 and first["Cache-Control"] == "no-cache"
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == first["ETag"]


def test_a_finished_set_shows_once_the_reuse_window_went_by(api, running):
    first = api.get(standings_url(running))
    play_one_set(running)
    time.sleep(VERSION_SECONDS)
    again = api.get(standings_url(running), HTTP_IF_NONE_MATCH=first["ETag"])
    assert sets_played(first) == 0
    assert again.status_code == 200 and again["ETag"] != first["ETag"]
    assert sets_played(again) == 1


def test_a_set_settled_after_its_matches_finished_changes_the_standings(api, running):
    # A set is recorded in a write of its own after its last match finished; a version
    # read in between must not keep the standings without it.
    first = api.get(standings_url(running))
    settle_without_playing(DuplicateSet.objects.filter(pairing__tournament=running).first(), 2, 0)
    tournament_version_forget(tournament_id=running.pk)
    again = api.get(standings_url(running))
    assert again["ETag"] != first["ETag"]
    assert sets_played(again) == 1


def test_each_page_of_the_standings_is_cached_on_its_own(api, running):
    whole = api.get(standings_url(running)).json()
    first_page = api.get(standings_url(running) + "?limit=2").json()
    second_page = api.get(standings_url(running) + "?limit=2&offset=2").json()
    assert first_page["results"] + second_page["results"] == whole["results"]
    assert first_page["next"].endswith("?limit=2&offset=2") and whole["next"] is None


def test_a_cached_standings_request_costs_no_query(api, running, django_assert_num_queries):
    api.get(standings_url(running))
    with django_assert_num_queries(0):
        assert api.get(standings_url(running)).status_code == 200


def test_indented_json_and_the_browsable_api_are_not_served_the_plain_json(api, running):
    plain = api.get(standings_url(running), HTTP_ACCEPT="application/json")
    indented = api.get(standings_url(running), HTTP_ACCEPT="application/json; indent=2")
    html = api.get(standings_url(running), HTTP_ACCEPT="text/html")
    assert plain.json() == indented.json()
    assert b"\n" not in plain.content and indented.content.startswith(b'{\n  "count"')
    assert html["Content-Type"].startswith("text/html") and b"sonneborn_berger" in html.content
