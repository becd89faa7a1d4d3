"""Series of tournament matches: a pairing's sets cut by seating and by the longest series.

The twin test (no bot process sees a deal from both seats, over real sandboxed series) is
``tests/bots/test_series_in_tournaments.py``, beside the sandbox's fixtures.
"""

from __future__ import annotations

from config.celery import app
from tournaments.models import TournamentMatch
from tournaments.series import match_series
from tournaments.services import round_robin_create

from .conftest import strategy_bots


def test_a_pairings_sets_make_two_series_one_per_seating(db):
    versions = strategy_bots(2)
    tournament = round_robin_create(
        name="t", game_id="snag", versions=versions, sets_per_pair=3, secret=1, enqueue=False
    )
    ids = list(
        TournamentMatch.objects.filter(tournament=tournament)
        .order_by("match_id")
        .values_list("match_id", flat=True)
    )
    series = match_series(match_ids=ids)

    assert sorted(len(s) for s in series) == [3, 3]
    for one in series:
        links = TournamentMatch.objects.filter(match_id__in=one)
        assert len({link.first_seat for link in links}) == 1
        assert len({link.duplicate_set_id for link in links}) == 3


def test_a_series_is_at_most_the_longest_series_setting(db, settings):
    settings.BAIZE_SERIES_MAX_MATCHES = 2
    versions = strategy_bots(2)
    tournament = round_robin_create(
        name="t", game_id="snag", versions=versions, sets_per_pair=5, secret=1, enqueue=False
    )
    ids = list(
        TournamentMatch.objects.filter(tournament=tournament)
        .order_by("match_id")
        .values_list("match_id", flat=True)
    )

    assert sorted(len(s) for s in match_series(match_ids=ids)) == [1, 1, 2, 2, 2, 2]


def test_enqueueing_a_pairings_sets_plays_them_as_series(
    db, django_capture_on_commit_callbacks, monkeypatch
):
    # In this process, also where a broker is configured: the sending is what is tested.
    monkeypatch.setitem(app.conf, "task_always_eager", True)
    versions = strategy_bots(2)
    with django_capture_on_commit_callbacks(execute=True):
        tournament = round_robin_create(
            name="t", game_id="snag", versions=versions, sets_per_pair=2, secret=1, enqueue=True
        )

    links = TournamentMatch.objects.filter(tournament=tournament)
    assert links.count() == 4
    assert not links.exclude(match__status="finished").exists()
