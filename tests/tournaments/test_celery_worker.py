"""A real Celery worker process plays a round robin on PostgreSQL and Redis.

CI runs the suite a second time with ``DATABASE_URL`` on PostgreSQL and
``CELERY_BROKER_URL`` on Redis; there these tests must run (``BAIZE_REQUIRE_SERVICES``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from bots.services import builtin_bots_sync
from config.celery import app
from games.models import Match
from games.selectors import match_replay
from tournaments.models import Tournament
from tournaments.services import round_robin_create
from tournaments.tasks import tournament_match_play

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 180


def _services_configured() -> bool:
    return connection.vendor == "postgresql" and bool(os.environ.get("CELERY_BROKER_URL"))


@pytest.mark.django_db
def test_worker_tests_use_the_test_database():
    # This marked test also makes pytest-django create the test database for the session,
    # which the unmarked worker tests below then use in autocommit.
    if not _services_configured():
        pytest.skip("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis")
    assert connection.settings_dict["NAME"].startswith("test_")


@pytest.fixture
def committed_db(django_db_setup, django_db_blocker):
    """Database access in autocommit, so that rows are visible to the worker process."""
    if not _services_configured():
        pytest.skip("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis")
    if not connection.settings_dict["NAME"].startswith("test_"):
        pytest.fail("the test database was not set up; refusing to touch a real database")
    with django_db_blocker.unblock():
        try:
            yield
        finally:
            _flush_including_match_events()


def _flush_including_match_events() -> None:
    # The append-only trigger refuses TRUNCATE of a log holding events; DDL is the one way
    # past it, by design, so the test database is emptied with the trigger off for a moment.
    with connection.cursor() as cursor:
        cursor.execute(
            "ALTER TABLE games_matchevent DISABLE TRIGGER games_matchevent_refuse_truncate"
        )
        try:
            call_command("flush", interactive=False, verbosity=0)
        finally:
            cursor.execute(
                "ALTER TABLE games_matchevent ENABLE ALWAYS TRIGGER games_matchevent_refuse_truncate"
            )


def _test_database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@pytest.fixture
def celery_worker_process(committed_db):
    app.control.purge()
    env = {**os.environ, "DATABASE_URL": _test_database_url()}
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--loglevel=WARNING",
        "--concurrency=2",
        "--hostname",
        f"test-{os.getpid()}@%h",
    ]
    worker = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    try:
        _wait_until(lambda: app.control.ping(timeout=0.5), "the worker to answer a ping")
        yield worker
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, 9)
            worker.wait()


def _wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {WAIT_SECONDS}s waiting for {what}")
        time.sleep(0.2)


def _event_counts(match: Match) -> tuple[int, int]:
    return match.events.count(), match.events.filter(type="match_started").count()


def test_a_worker_plays_a_round_robin_to_its_standings(celery_worker_process):
    versions = builtin_bots_sync(game_id="snag")
    tournament = round_robin_create(
        name="worker round robin", game_id="snag", versions=versions, sets_per_pair=2, seed=9
    )
    _wait_until(
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
        name="twice", game_id="snag", versions=versions, seed=10, enqueue=False
    )
    match = Match.objects.filter(tournament_match__tournament=tournament).first()
    tournament_match_play.delay(match.pk)
    tournament_match_play.delay(match.pk)
    _wait_until(lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED, "the match")
    settled = _event_counts(match)
    tournament_match_play.delay(match.pk)
    time.sleep(2)  # time for both extra deliveries to reach the worker and do nothing
    assert _event_counts(match) == settled
    assert settled[1] == 1
    seqs = list(match.events.values_list("seq", flat=True))
    assert seqs == list(range(len(seqs)))
    assert match_replay(match=match).ok
