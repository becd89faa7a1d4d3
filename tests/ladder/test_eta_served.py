"""A challenge's expected time, against the time it took: a real worker with two processes,
a backlog of challenges queued ahead of it."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User
from django.test import Client

from ladder.services import challenge_create
from tests.tournaments.conftest import strategy_bots, wait_until
from tournaments.models import Tournament

pytestmark = [pytest.mark.services, pytest.mark.slow(seconds=35)]

BACKLOG = 4
SETS = 20


def finished(challenge: Tournament) -> bool:
    return Tournament.objects.get(pk=challenge.pk).status == Tournament.Status.FINISHED


@pytest.mark.django_db(transaction=True)  # the test database, committed as the worker sees it
def test_a_challenge_behind_a_backlog_takes_within_a_factor_of_two_of_its_eta(celery_workers):
    alice = User.objects.create_user("alice")
    heuristic, random = strategy_bots(2, game="spades", owner=alice)
    celery_workers()
    # The last hour's matches tell how long one takes: a first challenge gives them.
    first = challenge_create(user=alice, version=heuristic, opponent=random, sets=4)
    wait_until(lambda: finished(first), "the first challenge")
    for _ in range(BACKLOG):
        challenge_create(user=alice, version=heuristic, opponent=random, sets=SETS)
    last = challenge_create(user=alice, version=heuristic, opponent=random, sets=SETS)
    sent = time.monotonic()
    shown = Client().get(f"/api/challenges/{last.pk}/").json()
    wait_until(lambda: finished(last), "the last challenge")
    took = time.monotonic() - sent
    print(
        f"\nchallenge behind {BACKLOG} others: eta {shown['eta_seconds']} s at the start"
        f" (place {shown['position']}, {shown['matches_left']} matches left),"
        f" took {took:.1f} s: {shown['eta_seconds'] / took:.2f}x"
    )
    assert shown["position"] is not None and shown["position"] > 1
    assert took / 2 <= shown["eta_seconds"] <= took * 2
    assert Client().get(f"/api/challenges/{last.pk}/").json()["eta_seconds"] is None
