"""The ladder, challenge and version-test pages."""

from __future__ import annotations

import pytest

from ladder.services import challenge_create, version_test_create
from tests.ladder.conftest import (
    SHORT,
    bots_of,
    ladder_played,
    play_pending,
    settled_challenge,
    win_until_decided,
)
from tournaments.models import Tournament
from tournaments.sprt import SprtParameters, elo_interval


@pytest.fixture
def played_ladder(alice, bob, settings):
    settings.BAIZE_LADDER_SETS_IN_FLIGHT = 10
    return ladder_played(alice, bob, ticks=2)


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


def _sets_table(html: str, table_id: str) -> str:
    return html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]


@pytest.mark.parametrize("challenger_seed", [1, 2])
@pytest.mark.parametrize(("won", "sets"), [(False, 10), (True, 5)])
def test_the_challenge_page_reads_from_the_challengers_side_whichever_seed_it_has(
    client, alice, bob, challenger_seed, won, sets
):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    challenge = settled_challenge(mine, theirs, challenger_seed=challenger_seed, won=won, sets=sets)

    html = client.get(f"/challenges/{challenge.pk}/").content.decode()

    record = f"{sets}–0–0" if won else f"0–0–{sets}"
    points = f"{sets * 40}–{sets * 5}" if won else f"{sets * 5}–{sets * 40}"
    assert f'id="record">{record}</strong>' in html and f'id="points">{points}</strong>' in html
    rows = _sets_table(html, "challenge-sets")
    assert rows.count("<td>won</td>") == (sets if won else 0)
    assert rows.count("<td>lost</td>") == (0 if won else sets)
    assert rows.count(">2–0<" if won else ">0–2<") == sets
    assert rows.count(theirs.bot.name) == sets and mine.bot.name not in rows.split("<tbody>")[1]
    low, high = elo_interval(sets, 0, 0) if won else elo_interval(0, 0, sets)
    elo = f"set-Elo {low:.0f} or more" if won else f"set-Elo {high:.0f} or less"
    assert elo in html and "2400" not in html


def test_the_challenge_page_at_five_sets_won_of_five_shows_an_interval_not_a_point(
    client, alice, bob
):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    challenge = settled_challenge(mine, theirs, challenger_seed=2, won=True, sets=5)

    html = client.get(f"/challenges/{challenge.pk}/").content.decode()

    assert "95% Wilson interval 0.566 to 1.000; set-Elo 46 or more" in html


def test_the_version_test_page_shows_an_llr_of_exactly_zero_before_any_set(client, alice):
    candidate, baseline = bots_of(alice, 2)
    test = version_test_create(
        user=alice, candidate=candidate, baseline=baseline, parameters=SprtParameters()
    )

    html = client.get(f"/version-tests/{test.pk}/").content.decode()

    assert 'id="llr">0.00</strong>' in html and "-0.00" not in html
    assert 'aria-label="log-likelihood ratio 0.00 between' in html


def test_the_set_a_decided_version_test_did_not_play_reads_not_played_on_its_page(client, alice):
    candidate, baseline = bots_of(alice, 2)
    test = version_test_create(
        user=alice, candidate=candidate, baseline=baseline, parameters=SprtParameters(elo1=150)
    )
    win_until_decided(test, candidate)  # 9 sets won decide: 3 of the third batch unplayed

    rows = _sets_table(client.get(f"/version-tests/{test.pk}/").content.decode(), "test-sets")

    assert rows.count("not played: the test had decided before this set was played") == 3
    assert "failed" not in rows and ">playing<" not in rows


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
