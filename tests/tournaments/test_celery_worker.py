"""A real Celery worker process plays a round robin on PostgreSQL and Redis.

The worker fixtures live in ``conftest.py``; ``test_worker_tournaments.py`` has the
tournaments that run from their scheduled start with the tick.
"""

from __future__ import annotations

import time

import pytest
from django.db import connection

from bots.services.bots import builtin_bots_sync
from matches.models import Match
from matches.selectors import match_event_records, match_replay
from tournaments.models import Tournament
from tournaments.services import round_robin_create
from tournaments.tasks import tournament_match_play

from .conftest import services_configured, wait_until

pytestmark = pytest.mark.services


@pytest.mark.django_db
def test_worker_tests_use_the_test_database():
    # This marked test also makes pytest-django create the test database for the session,
    # which the unmarked worker tests below then use in autocommit.
    if not services_configured():
        pytest.skip("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis")
    assert connection.settings_dict["NAME"].startswith("test_")


def _event_counts(match: Match) -> tuple[int, int]:
    log = match_event_records(match=match)
    return len(log), sum(1 for record in log if record.type == "match_started")


def test_a_worker_plays_a_round_robin_to_its_standings(celery_worker_process):
    versions = builtin_bots_sync(game_id="snag")
    tournament = round_robin_create(
        name="worker round robin", game_id="snag", versions=versions, sets_per_pair=2, secret=9
    )
    wait_until(
        lambda: Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED,
        "the tournament to finish",
    )
    matches = list(Match.objects.filter(tournament_match__tournament=tournament))
    assert len(matches) == 4
    for match in matches:
        assert match.status == Match.Status.FINISHED and match.winner in (0, 1)
        assert _event_counts(match)[1] == 1, "each match is logged exactly once"
        assert match_replay(match=match).ok


def test_delivering_the_same_match_task_twice_leaves_one_log(celery_worker_process):
    versions = builtin_bots_sync(game_id="snag")
    tournament = round_robin_create(
        name="twice", game_id="snag", versions=versions, secret=10, enqueue=False
    )
    match = Match.objects.filter(tournament_match__tournament=tournament).first()
    tournament_match_play.delay(match.pk)
    tournament_match_play.delay(match.pk)
    wait_until(lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED, "the match")
    settled = _event_counts(match)
    tournament_match_play.delay(match.pk)
    time.sleep(2)  # time for both extra deliveries to reach the worker and do nothing
    assert _event_counts(match) == settled
    assert settled[1] == 1
    seqs = [record.seq for record in match_event_records(match=match)]
    assert seqs == list(range(len(seqs)))
    assert match_replay(match=match).ok
