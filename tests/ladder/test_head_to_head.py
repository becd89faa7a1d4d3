"""A bot version's head-to-head record against every opponent version, and its API."""

from __future__ import annotations

import pytest

from bots.models import BotVersion
from ladder.selectors import version_head_to_head
from ladder.services import challenge_create
from matches.models import Match
from tests.tournaments.conftest import (
    play_all,
    settle_without_playing,
    start,
    strategy_bots,
    tournament_with,
)
from tournaments.models import DuplicateSet, Tournament
from tournaments.services.scheduling import tournament_advance

from .conftest import bots_of


def settle_from(duplicate_set: DuplicateSet, version: BotVersion, wins, points) -> None:
    """Record the set with ``wins`` and ``points`` read from ``version``'s side."""
    if duplicate_set.pairing.first.version_id != version.pk:
        wins, points = wins[::-1], points[::-1]
    settle_without_playing(duplicate_set, *wins, points=points)


def challenge_settled(version, opponent, results) -> Tournament:
    """A finished challenge whose sets end as ``results`` ((wins, points) from ``version``)."""
    challenge = challenge_create(
        user=version.bot.owner, version=version, opponent=opponent, sets=len(results)
    )
    sets = DuplicateSet.objects.filter(pairing__tournament=challenge).select_related(
        "pairing__first"
    )
    for duplicate_set, (wins, points) in zip(sets.order_by("number"), results, strict=True):
        settle_from(duplicate_set, version, wins, points)
    tournament_advance(tournament_id=challenge.pk)
    challenge.refresh_from_db()
    assert challenge.status == Tournament.Status.FINISHED
    return challenge


@pytest.fixture
def met(alice, bob):
    """Alice's version against two of Bob's: won, drawn, lost against the first (in two
    challenges), then one set won against the second."""
    [mine] = bots_of(alice, 1)
    first, second = bots_of(bob, 2)
    challenge_settled(mine, first, [((2, 0), (40, 5)), ((1, 1), (20, 20))])
    challenge_settled(first, mine, [((2, 0), (30, 10))])  # Bob challenges: Alice loses
    challenge_settled(mine, second, [((1, 1), (25, 15))])
    return mine, first, second


def test_a_version_s_record_counts_every_set_from_its_side(met):
    mine, first, second = met

    rows = version_head_to_head(version=mine)

    assert [row.opponent for row in rows] == [second, first]  # the one met last first
    latest, earlier = rows
    assert (earlier.wins, earlier.draws, earlier.losses) == (1, 1, 1)
    assert (earlier.matches_won, earlier.matches_lost) == (3, 3)
    assert (earlier.points, earlier.opponent_points) == (70, 55)
    assert earlier.score == 0.5
    low, high = earlier.score_interval
    assert 0 <= low < 0.5 < high <= 1
    assert (latest.wins, latest.draws, latest.losses, latest.score) == (1, 0, 0, 1.0)
    assert (latest.points, latest.opponent_points) == (25, 15)
    assert latest.score_interval[1] == 1.0 and 0 < latest.score_interval[0] < 1
    # From the other side the same sets read the other way.
    [theirs] = version_head_to_head(version=first)
    assert theirs.opponent == mine
    assert (theirs.wins, theirs.draws, theirs.losses) == (1, 1, 1)
    assert (theirs.points, theirs.opponent_points) == (55, 70)


def test_the_api_gives_the_latest_ready_version_s_rows(met, client):
    mine, first, second = met
    BotVersion.objects.create(
        bot=mine.bot, number=2, content_hash="new", status=BotVersion.Status.PENDING
    )

    response = client.get(f"/api/bots/{mine.bot_id}/head-to-head/")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["bot_id"], body["version"], body["version_id"]) == (mine.bot_id, 1, mine.pk)
    row = body["rows"][1]
    assert row["opponent"]["bot_id"] == first.bot_id
    assert row["opponent"]["version_id"] == first.pk and row["opponent"]["version"] == 1
    assert row["opponent"]["bot"] == first.bot.name
    assert (row["sets"], row["wins"], row["draws"], row["losses"]) == (3, 1, 1, 1)
    assert (row["matches_won"], row["matches_lost"]) == (3, 3)
    assert (row["points"], row["opponent_points"]) == (70, 55)
    assert row["score"] == 0.5 and row["score_interval"][0] < 0.5 < row["score_interval"][1]
    assert row["last_met"] is not None
    assert row["matches"] == []  # settled by hand: no match was finished
    assert client.get(f"/api/bots/{mine.bot_id}/head-to-head/?version=1").json() == body


@pytest.mark.parametrize(
    ("query", "status", "field"),
    [
        ("?version=abc", 400, "version"),
        ("?version=-1", 400, "version"),
        ("?version=7", 404, "version"),
    ],
)
def test_a_bad_version_is_refused_naming_it(met, client, query, status, field):
    mine, _, _ = met
    response = client.get(f"/api/bots/{mine.bot_id}/head-to-head/{query}")
    assert response.status_code == status
    assert field in response.json()["detail"]


def test_an_unknown_bot_or_one_without_a_ready_version_is_not_found(client, alice):
    assert client.get("/api/bots/999999/head-to-head/").status_code == 404
    [version] = bots_of(alice, 1)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PENDING)
    response = client.get(f"/api/bots/{version.bot_id}/head-to-head/")
    assert response.status_code == 404 and response.json()["error"] == "not_found"


def test_a_played_round_robin_links_each_row_to_its_matches(client, db):
    versions = strategy_bots(3)
    tournament = play_all(start(tournament_with(versions, sets_per_pair=2)))
    assert tournament.status == Tournament.Status.FINISHED

    body = client.get(f"/api/bots/{versions[0].bot_id}/head-to-head/").json()

    assert {row["opponent"]["version_id"] for row in body["rows"]} == {
        versions[1].pk,
        versions[2].pk,
    }
    for row in body["rows"]:
        assert row["sets"] == 2 == row["wins"] + row["draws"] + row["losses"]
        assert row["matches_won"] + row["matches_lost"] <= 4
        low, high = row["score_interval"]
        assert 0 <= low <= row["score"] <= high <= 1
        ids = [int(url.rstrip("/").rsplit("/", 1)[1]) for url in row["matches"]]
        assert len(ids) == 4 and ids == sorted(ids, key=lambda pk: _finished(pk), reverse=True)
        assert all(url.startswith("http://testserver/api/matches/") for url in row["matches"])
        seats = Match.objects.filter(pk__in=ids).values_list("seats__version", flat=True)
        assert set(seats) == {versions[0].pk, row["opponent"]["version_id"]}
        # The points are the matches' own, from this bot's side.
        points = against = 0
        for match in Match.objects.filter(pk__in=ids).prefetch_related("seats"):
            seat = next(s.seat for s in match.seats.all() if s.version_id == versions[0].pk)
            points += match.scores[seat]
            against += match.scores[1 - seat]
        assert (row["points"], row["opponent_points"]) == (points, against)


def _finished(pk: int):
    match = Match.objects.get(pk=pk)
    return (match.finished_at, match.pk)
