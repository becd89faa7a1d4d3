"""The ladder, challenge and version-test pages."""

from __future__ import annotations

import pytest

from ladder.services import challenge_create, ladder_for, ladder_tick, version_test_create
from tests.ladder.conftest import bots_of, play_pending
from tournaments.models import Tournament
from tournaments.sprt import SprtParameters

SHORT = {"target": 10}


@pytest.fixture
def played_ladder(alice, bob, settings):
    settings.BAIZE_LADDER_SETS_IN_FLIGHT = 10
    bots_of(alice, 2)
    bots_of(bob, 2)
    ladder = ladder_for(game_id="snag")
    Tournament.objects.filter(pk=ladder.pk).update(options=SHORT)
    for _ in range(2):
        ladder_tick()
        play_pending(ladder)
    return ladder


def test_the_ladder_page_ranks_the_bots_and_lists_recent_sets(client, played_ladder):
    page = client.get("/ladder/snag/")
    html = page.content.decode()

    assert page.status_code == 200
    assert html.count('<td class="num">') >= 4 and "placing" in html
    assert 'id="ladder-sets"' in html and "/matches/" in html


def test_an_unknown_game_has_no_ladder_page(client, db):
    assert client.get("/ladder/chess/").status_code == 404


def test_the_challenge_page_shows_the_record_and_the_interval(client, alice, bob):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    challenge = challenge_create(user=alice, version=mine, opponent=theirs, sets=2)
    Tournament.objects.filter(pk=challenge.pk).update(options=SHORT)
    play_pending(challenge)

    html = client.get(f"/challenges/{challenge.pk}/").content.decode()

    assert "Unranked" in html and 'id="record"' in html and "95% Wilson interval" in html


def test_the_version_test_page_shows_the_llr_against_its_bounds_and_the_verdict(client, alice):
    candidate, baseline = bots_of(alice, 2)
    test = version_test_create(
        user=alice, candidate=candidate, baseline=baseline, parameters=SprtParameters()
    )
    running = client.get(f"/version-tests/{test.pk}/").content.decode()
    assert "Running" in running and 'http-equiv="refresh"' in running
    Tournament.objects.filter(pk=test.pk).update(options=SHORT)
    play_pending(test)

    html = client.get(f"/version-tests/{test.pk}/").content.decode()

    assert "<strong>Better</strong>: H1 accepted" in html
    assert 'id="llr"' in html and "http-equiv" not in html


def test_the_version_test_page_of_a_pool_names_every_opponent(client, alice, bob):
    [candidate] = bots_of(alice, 1)
    pool = bots_of(bob, 2)
    test = version_test_create(
        user=alice, candidate=candidate, pool=pool, parameters=SprtParameters()
    )

    html = client.get(f"/version-tests/{test.pk}/").content.decode()

    assert f"Is {candidate.bot.name} v1 better than its pool?" in html
    assert "a pool of 2" in html
    for version in pool:
        assert version.bot.name in html


def test_the_tournament_list_page_leaves_out_the_ladder(client, played_ladder):
    assert played_ladder.name not in client.get("/tournaments/").content.decode()
