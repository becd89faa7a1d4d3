"""A challenge's and a version test's place in the queue and expected time, in the API and on
their pages."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from ladder.selectors import author_eta
from ladder.services import challenge_create, version_test_create
from monitoring.services import worker_heartbeat_beat
from tournaments.models import DuplicateSet
from tournaments.queueing import queue_snapshot
from tournaments.sprt import SprtParameters

from .conftest import bots_of, settle_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def worker_alive(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # sent to workers, not played here
    worker_heartbeat_beat(
        name="celery@eta",
        pid=1,
        concurrency=2,
        busy=0,
        queues=["celery", "sandboxed"],
        sandbox="full",
        sandbox_reason="",
        started_at=timezone.now(),
    )


def test_a_waiting_challenge_shows_its_place_and_about_how_long_it_takes(worker_alive):
    alice = User.objects.create_user("alice")
    mine, theirs = bots_of(alice, 2)
    challenge_create(user=alice, version=mine, opponent=theirs, sets=2)
    later = challenge_create(user=alice, version=mine, opponent=theirs, sets=2)
    shown = Client().get(f"/api/challenges/{later.pk}/").json()
    assert shown["position"] == 2 and shown["matches_left"] == 4
    # One task of four matches each, on two slots side by side; no history: the defaults.
    assert shown["eta_seconds"] == round(4 * (5.0 + 0.2))
    page = Client().get(f"/challenges/{later.pk}/").content.decode()
    assert f"about {shown['eta_seconds']} s" in page and "place 2 in line" in page


def test_without_a_worker_alive_no_time_is_promised(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    alice = User.objects.create_user("alice")
    mine, theirs = bots_of(alice, 2)
    challenge = challenge_create(user=alice, version=mine, opponent=theirs, sets=1)
    assert Client().get(f"/api/challenges/{challenge.pk}/").json()["eta_seconds"] is None
    assert (
        "no worker alive can play it"
        in Client().get(f"/challenges/{challenge.pk}/").content.decode()
    )


def test_a_version_test_on_its_way_to_a_bound_counts_the_batches_it_still_needs(worker_alive):
    alice = User.objects.create_user("alice")
    new, old = bots_of(alice, 2)
    test = version_test_create(
        user=alice, candidate=new, baseline=old, parameters=SprtParameters(0, 50, 0.05, 0.05, 400)
    )
    first = author_eta(tournament=test, snapshot=queue_snapshot())
    assert first.eta_seconds == round(
        4 * 5.2
    )  # its first batch: two tasks of 4 matches, side by side
    for duplicate_set in DuplicateSet.objects.filter(pairing__tournament=test):
        settle_for(duplicate_set, new, won=duplicate_set.number % 2 == 1)  # no pace: 2-2
    from tournaments.services.scheduling import tournament_advance

    tournament_advance(tournament_id=test.pk)  # the next batch, at an LLR of about 0
    even = author_eta(tournament=test, snapshot=queue_snapshot())
    for duplicate_set in DuplicateSet.objects.filter(
        pairing__tournament=test, status=DuplicateSet.Status.PLAYING
    ):
        settle_for(duplicate_set, new, won=True)
    tournament_advance(tournament_id=test.pk)
    ahead = author_eta(tournament=test, snapshot=queue_snapshot())
    # At an even score the test is far from either bound: up to its cap of sets; winning
    # every set it nears its upper bound, and is expected to end much sooner.
    assert ahead.eta_seconds < even.eta_seconds
