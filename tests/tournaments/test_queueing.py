"""The queue's model: tasks placed on the workers' slots as Celery on Redis hands them out,
and what the queue reads of the database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from monitoring.services import worker_heartbeat_beat
from tournaments.queueing import Slot, Task, queue_snapshot, schedule

from .conftest import start, strategy_bots, tournament_with


def task(key, *, priority=6, sent=0.0, matches=(10.0,), sandboxed=False, running=False, **more):
    return Task(
        key=(key,),
        tournament_id=more.get("tournament", 1),
        kind="challenge",
        priority=priority,
        sandboxed=sandboxed,
        sent_at=sent,
        matches=tuple(matches),
        running=running,
        elapsed=more.get("elapsed", 0.0),
    )


def test_waiting_tasks_take_the_slot_that_frees_first_best_priority_then_oldest():
    slots = [Slot(sandboxed=True), Slot(sandboxed=True)]
    running = [task("r", running=True, elapsed=4.0)]  # 6 s left on one slot
    waiting = [task("late", sent=2.0), task("early", sent=1.0), task("first", priority=0, sent=9)]
    plan = schedule(slots, running, waiting)
    assert plan.starts[("first",)] == 0.0
    assert plan.starts[("early",)] == 6.0
    assert plan.starts[("late",)] == 10.0
    assert plan.ends[("late",)] == 20.0


def test_uploaded_code_waits_for_a_sandboxed_slot_while_built_in_work_takes_any():
    slots = [Slot(sandboxed=False), Slot(sandboxed=True)]
    waiting = [task("a", sandboxed=True), task("b", sandboxed=True, sent=1), task("c", sent=2)]
    plan = schedule(slots, [], waiting)
    assert plan.starts[("a",)] == 0.0 and plan.starts[("b",)] == 10.0
    assert plan.starts[("c",)] == 0.0
    assert schedule([Slot(sandboxed=False)], [], [task("d", sandboxed=True)]).ends[("d",)] is None


def test_a_running_match_longer_than_expected_still_has_a_little_left():
    assert task("r", running=True, elapsed=99.0, matches=(10.0, 10.0)).seconds_left == 11.0


@pytest.mark.django_db
def test_without_a_broker_nothing_plays_and_no_time_is_promised(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    tournament = start(tournament_with(strategy_bots(2)))
    snapshot = queue_snapshot()
    assert not snapshot.plays
    assert snapshot.tournament_eta(tournament.pk).eta_seconds is None


@pytest.mark.django_db
def test_a_tournaments_sets_wait_as_tasks_and_workers_alive_give_them_a_time(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    tournament = start(tournament_with(strategy_bots(2), sets_per_pair=2))
    worker_heartbeat_beat(
        name="celery@test",
        pid=1,
        concurrency=2,
        busy=0,
        queues=["celery", "sandboxed"],
        sandbox="full",
        sandbox_reason="",
        started_at=timezone.now(),
    )
    snapshot = queue_snapshot()
    assert snapshot.slots == 2 and len(snapshot.waiting) == 1  # two sets: one task
    eta = snapshot.tournament_eta(tournament.pk)
    assert eta.position == 1 and eta.matches_left == 4
    assert eta.eta_seconds == pytest.approx(4 * (5.0 + 0.2))  # the defaults, no history yet
    body = Client().get("/api/queue/").json()
    assert body["workers_alive"] == 1 and body["slots"] == 2
    assert body["waiting"] == [
        {"priority": 0, "kind": "organised", "queue": "celery", "tasks": 1, "matches": 4}
    ]


@pytest.mark.django_db
def test_a_worker_whose_heartbeat_lapsed_is_not_counted(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    worker_heartbeat_beat(
        name="celery@gone",
        pid=1,
        concurrency=2,
        busy=0,
        queues=["celery"],
        sandbox="none",
        sandbox_reason="no bubblewrap",
        started_at=timezone.now(),
    )
    assert [w.name for w in queue_snapshot().workers] == []  # no broker: none counted
    later = timezone.now() + timedelta(minutes=5)
    from monitoring.selectors import workers_alive

    assert workers_alive() and not workers_alive(now=later)


@pytest.mark.django_db
def test_the_queue_page_shows_the_workers_and_what_waits(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    page = Client().get("/queue/")
    assert page.status_code == 200
    assert b'id="expected-wait"' in page.content and b"has no broker" in page.content
