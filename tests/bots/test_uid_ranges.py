"""Workers of one host lease sandbox uid ranges apart (``bots.services.uid_ranges``): the
leasing function under several identities, on the database alone."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from bots.models import SandboxRange
from bots.services import uid_ranges
from bots.services.uid_ranges import (
    RangeLease,
    host_identity,
    sandbox_range_lease,
    sandbox_range_release,
    sandbox_range_renew,
    sandbox_uid_base,
)
from bots.worker_sandbox import range_leftovers_end

pytestmark = pytest.mark.django_db

STEP = 100_000


@pytest.fixture(autouse=True)
def _ranges(settings):
    settings.BAIZE_SANDBOX_UID_BASE = None
    settings.BAIZE_SANDBOX_RANGES_BASE = 50_000_000
    settings.BAIZE_SANDBOX_RANGES = 3
    settings.BAIZE_SANDBOX_SLOTS = 8
    settings.BAIZE_SANDBOX_LEASE_SECONDS = 60


def nobody(uid_base: int, slots: int) -> list[int]:
    return []


def lease(holder: str, in_use=nobody) -> RangeLease | None:
    return sandbox_range_lease(holder=holder, in_use=in_use)


def lapse(taken: RangeLease) -> None:
    """As if its holder had stopped renewing a minute ago."""
    SandboxRange.objects.filter(host=taken.host, index=taken.index).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )


def test_two_workers_of_one_host_lease_ranges_apart():
    first, second = lease("celery@a pid 1"), lease("celery@b pid 2")

    assert (first.index, first.uid_base, first.slots) == (0, 50_000_000, 8)
    assert (second.index, second.uid_base) == (1, 50_000_000 + STEP)
    assert first.host == second.host == host_identity()
    assert first.taken_from == second.taken_from == ""
    assert first.describe() == (
        f"uids 50000000-50000007: range 0 of host {first.host}, leased by celery@a pid 1"
    )


def test_the_host_is_the_kernels_boot_id_which_every_container_of_it_reads_alike():
    assert host_identity() == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert len(host_identity()) == 36


def test_a_range_released_at_exit_is_the_next_workers_once_what_ran_there_is_ended():
    first = lease("celery@a pid 1")
    lease("celery@b pid 2")
    cleared = []

    assert sandbox_range_release(lease=first, clear=lambda *uids: cleared.append(uids))

    assert cleared == [(50_000_000, 8)]
    third = lease("celery@c pid 3")
    assert (third.index, third.taken_from) == (0, "")


def test_every_range_held_leaves_a_newcomer_without_one():
    for n in range(3):
        assert lease(f"celery@{n} pid {n}") is not None
    assert lease("celery@late pid 9") is None


def test_a_lapsed_lease_goes_to_the_next_worker_naming_its_holder_who_cannot_renew_it():
    dead = lease("celery@dead pid 1")
    lapse(dead)

    taker = lease("celery@next pid 2")

    assert (taker.index, taker.taken_from) == (0, "celery@dead pid 1")
    assert taker.lapsed_at < timezone.now()
    assert not sandbox_range_renew(lease=dead)
    assert sandbox_range_renew(lease=taker)
    cleared = []
    assert not sandbox_range_release(lease=dead, clear=lambda *uids: cleared.append(uids))
    assert cleared == [], "the taker's range is never cleared by the one that lost it"


def test_a_lease_renewed_in_time_is_never_taken():
    held = lease("celery@a pid 1")
    assert sandbox_range_renew(lease=held)
    assert lease("celery@b pid 2").index == 1


def test_a_free_range_that_processes_run_under_belongs_to_another_baize_and_is_left_alone(
    caplog,
):
    def another_instance_on_range_zero(uid_base: int, slots: int) -> list[int]:
        return [4242] if uid_base == 50_000_000 else []

    with caplog.at_level(logging.WARNING):
        taken = lease("celery@a pid 1", in_use=another_instance_on_range_zero)

    assert taken.index == 1
    assert "uids 50000000-50000007) is free, but processes" in caplog.text
    assert "(pids 4242)" in caplog.text


def test_a_lapsed_holders_range_is_taken_even_with_its_leftovers_running():
    dead = lease("celery@dead pid 1")
    lapse(dead)
    taker = lease("celery@next pid 2", in_use=lambda uid_base, slots: [4242])
    assert (taker.index, taker.taken_from) == (0, "celery@dead pid 1")


def test_the_worker_says_what_it_took_and_from_whom(caplog):
    dead = lease("celery@dead pid 1")
    lapse(dead)
    taker = lease("celery@next pid 2")

    with caplog.at_level(logging.INFO, logger="bots.worker_sandbox"):
        range_leftovers_end(taker)

    assert f"sandbox {taker.describe()}" in caplog.text
    assert "taken from celery@dead pid 1, whose lease lapsed at " in caplog.text
    assert "nothing was left under its uids" in caplog.text


def test_a_process_takes_the_fixed_range_else_its_workers_lease_else_the_unleased_one(
    settings, monkeypatch
):
    settings.BAIZE_SANDBOX_UNLEASED_UID_BASE = 2_000_000
    assert sandbox_uid_base() == 2_000_000
    monkeypatch.setattr(uid_ranges, "_held", lease("celery@a pid 1"))
    assert sandbox_uid_base() == 50_000_000
    settings.BAIZE_SANDBOX_UID_BASE = 7_000_000
    assert sandbox_uid_base() == 7_000_000
