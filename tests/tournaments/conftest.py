"""Tournament fixtures: bots running the built-in strategies, and ways to play a tournament.

There are two built-in bots per game (``random`` and ``<game>_heuristic``); a field of
eight needs more, so ``strategy_bots`` creates extra bots whose versions run those same
strategies, alternately the heuristic and random.
"""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from bots.models import Bot, BotVersion
from config.celery import app
from matches.models import Match
from tournaments import services
from tournaments.config import TournamentConfig
from tournaments.models import DuplicateSet, Tournament, TournamentMatch
from tournaments.services.scheduling import tournament_advance
from tournaments.tasks import tournament_match_play

#: Short Snag matches: the match ends after the deal in which someone reaches 10 points.
SHORT_SNAG = {"target": 10}
_counter = itertools.count(1)


def strategy_bots(count: int, game: str = "snag", owner=None) -> list[BotVersion]:
    """``count`` ready bot versions of distinct bots, the heuristic first, then random, ..."""
    versions = []
    for index in range(count):
        strategy = f"{game}_heuristic" if index % 2 == 0 else "random"
        bot = Bot.objects.create(game=game, name=f"bot-{next(_counter)}", owner=owner)
        versions.append(
            BotVersion.objects.create(
                bot=bot,
                number=1,
                builtin=strategy,
                content_hash=f"{strategy}-{bot.pk}",
                status=BotVersion.Status.READY,
            )
        )
    return versions


def tournament_with(
    versions: list[BotVersion], *, format: str = "round_robin", **settings
) -> Tournament:
    """A draft tournament of ``versions`` (short Snag matches unless options are given)."""
    settings.setdefault("options", SHORT_SNAG)
    secret = settings.pop("secret", "test-seed")
    config = TournamentConfig(
        name=f"{format} test", game=versions[0].bot.game, format=format, **settings
    )
    tournament = services.tournament_create(config=config, secret=secret)
    for version in versions:
        services.tournament_enter(tournament=tournament, version=version)
    return tournament


def start(tournament: Tournament) -> Tournament:
    services.tournament_schedule(tournament=tournament, starts_at=timezone.now())
    assert services.tournament_start(tournament_id=tournament.pk, enqueue=False)
    tournament.refresh_from_db()
    return tournament


def pending_match_ids(tournament: Tournament) -> list[int]:
    return list(
        Match.objects.filter(
            tournament_match__tournament=tournament,
            tournament_match__replaced_at__isnull=True,
            status=Match.Status.PENDING,
        ).values_list("id", flat=True)
    )


def play_all(tournament: Tournament, limit: int = 500) -> Tournament:
    """Play pending matches in this process (as a worker would) until none is left.

    Tests run inside a transaction, where on-commit sends never fire, so this loop stands
    in for the broker: each match is played, settled and the tournament advanced.
    """
    for _ in range(limit):
        pending = pending_match_ids(tournament)
        if not pending:
            break
        for match_id in pending:
            tournament_match_play(match_id)
    tournament.refresh_from_db()
    return tournament


def settle_without_playing(
    duplicate_set: DuplicateSet, first_wins: int, second_wins: int, points=(0, 0)
) -> None:
    """Record a set's result directly, for format tests that need chosen results fast."""
    outcome = (first_wins, points[0]), (second_wins, points[1])
    DuplicateSet.objects.filter(pk=duplicate_set.pk).update(
        status=DuplicateSet.Status.FINISHED,
        first_wins=first_wins,
        second_wins=second_wins,
        first_points=points[0],
        second_points=points[1],
        outcome="drawn"
        if outcome[0] == outcome[1]
        else ("first" if outcome[0] > outcome[1] else "second"),
        finished_at=timezone.now(),
    )


def decide_all(tournament: Tournament, choose: Callable, limit: int = 200) -> Tournament:
    """Settle every playing set with ``choose(pairing) -> (first_wins, second_wins, points)``."""
    for _ in range(limit):
        playing = DuplicateSet.objects.filter(
            pairing__tournament=tournament, status=DuplicateSet.Status.PLAYING
        ).select_related("pairing__first", "pairing__second")
        if not playing:
            break
        for duplicate_set in playing:
            settle_without_playing(duplicate_set, *choose(duplicate_set.pairing))
        tournament_advance(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    return tournament


def current_matches(tournament: Tournament):
    return TournamentMatch.objects.filter(tournament=tournament, replaced_at__isnull=True)


@pytest.fixture
def eight_bots(db):
    return strategy_bots(8)


# --- Real Celery workers on PostgreSQL and Redis (the ``services`` tests) -----------------
#
# CI runs the suite a second time with ``DATABASE_URL`` on PostgreSQL and
# ``CELERY_BROKER_URL`` on Redis; there these tests must run (``BAIZE_REQUIRE_SERVICES``).

ROOT = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 180


def services_configured() -> bool:
    return connection.vendor == "postgresql" and bool(os.environ.get("CELERY_BROKER_URL"))


@pytest.fixture
def committed_db(django_db_setup, django_db_blocker):
    """Database access in autocommit, so that rows are visible to the worker process."""
    if not services_configured():
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
    trigger = "TRIGGER matches_eventbatch_refuse_truncate"
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE matches_eventbatch DISABLE {trigger}")
        try:
            call_command("flush", interactive=False, verbosity=0)
        finally:
            cursor.execute(f"ALTER TABLE matches_eventbatch ENABLE ALWAYS {trigger}")


def _test_database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@pytest.fixture
def celery_workers(committed_db):
    """Start real worker processes (``start(beat=True, hook=module, **env)``); all are
    stopped at the end.

    With ``beat`` the worker runs django-celery-beat's scheduler too (``-B``), which sends
    the tournaments tick every ``BAIZE_TICK_SECONDS``.
    """
    app.control.purge()
    started: list[subprocess.Popen] = []

    def start(*, beat: bool = False, hook: str | None = None, **env: str) -> subprocess.Popen:
        hostname = f"test-{os.getpid()}-{len(started)}@{socket.gethostname()}"
        command = [sys.executable, "-m", "celery", "-A", "config", "worker"]
        if hook:
            # A test module imported into the worker first, to break it at a chosen point.
            boot = f"import {hook}; from celery.__main__ import main; main()"
            command = [sys.executable, "-c", boot, "-A", "config", "worker"]
        command += ["--loglevel=WARNING", "--concurrency=2", "--hostname", hostname]
        if beat:
            # The beat scheduler (django-celery-beat's database one) comes from the settings;
            # the worker's own -S would name a state file, not a scheduler.
            command += ["-B"]
        # No ladder sets unless a test asks for them: the beat's ladder tick would otherwise
        # play sets among the test's own bots, beside the matches the test counts.
        environment = {
            **os.environ,
            "DATABASE_URL": _test_database_url(),
            "BAIZE_LADDER_SETS_IN_FLIGHT": "0",
            **env,
        }
        worker = subprocess.Popen(command, cwd=ROOT, env=environment, start_new_session=True)
        started.append(worker)
        wait_until(
            lambda: app.control.ping(destination=[hostname], timeout=0.5),
            f"the worker {hostname} to answer a ping",
        )
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker_stop(worker)
        app.control.purge()


def worker_stop(worker: subprocess.Popen) -> None:
    if worker.poll() is not None:
        return
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker_kill(worker)


def worker_kill(worker: subprocess.Popen) -> None:
    """SIGKILL the worker's whole process group: its pool, its beat, no goodbye."""
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()


@pytest.fixture
def celery_worker_process(celery_workers):
    return celery_workers()


def wait_until(condition: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {WAIT_SECONDS}s waiting for {what}")
        time.sleep(0.2)
