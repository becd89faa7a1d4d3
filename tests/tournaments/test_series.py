"""A worker task's matches: a pairing's whole sets, twins together, cut by the longest series.

The twin test (no bot process sees a deal from both seats, over real sandboxed series) is
``tests/bots/test_series_in_tournaments.py``, beside the sandbox's fixtures.
"""

from __future__ import annotations

from config.celery import app
from tournaments.models import TournamentMatch
from tournaments.series import SPREAD_FROM_SETS, match_series
from tournaments.services import round_robin_create

from .conftest import strategy_bots


def pairing_match_ids(sets: int) -> list[int]:
    tournament = round_robin_create(
        name="t",
        game_id="snag",
        versions=strategy_bots(2),
        sets_per_pair=sets,
        secret=1,
        enqueue=False,
    )
    return list(
        TournamentMatch.objects.filter(tournament=tournament)
        .order_by("match_id")
        .values_list("match_id", flat=True)
    )


def sets_and_seats(task: list[int]) -> list[tuple[int, int]]:
    links = {link.match_id: link for link in TournamentMatch.objects.filter(match_id__in=task)}
    return [(links[pk].duplicate_set.number, links[pk].first_seat) for pk in task]


def test_a_task_plays_whole_sets_in_order_each_sets_twins_back_to_back(db):
    (task,) = match_series(match_ids=pairing_match_ids(3))

    assert sets_and_seats(task) == [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)]


def test_twins_stay_together_whatever_order_the_matches_come_in(db):
    ids = pairing_match_ids(2)

    (task,) = match_series(match_ids=list(reversed(ids)))

    assert sets_and_seats(task) == [(1, 0), (1, 1), (2, 0), (2, 1)]


def test_a_task_holds_at_most_the_longest_series_in_sets_never_splitting_one(db, settings):
    settings.BAIZE_SERIES_MAX_MATCHES = 2
    ids = pairing_match_ids(5)

    tasks = match_series(match_ids=ids)

    assert [len(task) for task in tasks] == [4, 4, 2]
    for task in tasks:
        numbers = [number for number, _ in sets_and_seats(task)]
        assert all(numbers.count(n) == 2 for n in numbers), "a set split between tasks"


def test_a_pairing_of_many_sets_is_spread_over_two_tasks(db):
    tasks = match_series(match_ids=pairing_match_ids(SPREAD_FROM_SETS + 1))

    assert [len(task) for task in tasks] == [6, 4]


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
