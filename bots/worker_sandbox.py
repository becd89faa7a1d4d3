"""A Celery worker's sandbox: the uid range it holds, its probe, and the queue of uploaded code.

At start, before the pool forks (``celeryd_after_setup``: the pool processes inherit what is
decided here), a worker without ``BAIZE_SANDBOX_UID_BASE`` leases a range of its host
(``bots.services.uid_ranges``), waiting until one is free; a range taken from a holder whose
lease lapsed is first rid of what that holder left (``arena.sandbox.leftovers``: frozen bots
thawed and ended, stale slot cgroups removed), and the log says what was found. Then the
worker probes its sandbox, and consumes the sandboxed queue (``base.queues``) only if the
level is full.

While it runs, a thread of the main process (``SandboxKeeper``) renews the lease every third
of its term and, while the level is below full, probes again every
``BAIZE_SANDBOX_REPROBE_SECONDS``: once full, the worker starts consuming the sandboxed
queue. Its pool processes, forked with the old probe, probe again themselves before they
would refuse uploaded code (``bots.services.launch.sandbox_for_uploads``). A worker whose
lease was taken (its renewals failed for a whole term and another worker took the range,
ending its bots) stops, warm: its supervisor (compose's restart policy) starts it afresh. At
shutdown it ends what still runs under its uids and releases the range.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connections

from arena.sandbox.leftovers import leftovers_end
from base.queues import SANDBOXED_QUEUE

from .services.launch import current_sandbox, sandbox_probe_again
from .services.uid_ranges import (
    RangeLease,
    held_range,
    range_hold,
    sandbox_range_lease,
    sandbox_range_release,
    sandbox_range_renew,
    worker_range_record,
)

logger = logging.getLogger(__name__)

#: Seconds between two tries at a lease while none can be had (the database is down, or
#: every range of the host is held).
LEASE_RETRY_SECONDS = 5.0


def connect() -> None:
    from celery import signals

    signals.celeryd_after_setup.connect(_worker_setup, dispatch_uid="bots_sandbox", weak=False)
    signals.worker_ready.connect(_worker_ready, dispatch_uid="bots_sandbox", weak=False)
    signals.worker_shutdown.connect(_worker_shutdown, dispatch_uid="bots_sandbox", weak=False)


def _worker_setup(sender: str, instance: Any, **kwargs: Any) -> None:
    """Hold a range, probe in it, and take uploaded code only if the level is full."""
    if settings.BAIZE_SANDBOX_UID_BASE is None:
        lease = range_lease_waiting(holder=f"{sender} pid {os.getpid()}")
        range_hold(lease)
        worker_range_record(lease)
        # The pool forks next: no process may share this one's database connection.
        connections.close_all()
    else:
        first = settings.BAIZE_SANDBOX_UID_BASE
        last = first + settings.BAIZE_SANDBOX_SLOTS - 1
        logger.info("sandbox uids %s-%s: fixed by BAIZE_SANDBOX_UID_BASE", first, last)
    sandbox = current_sandbox()
    if sandbox.report.safe:
        instance.app.amqp.queues.select_add(SANDBOXED_QUEUE)
        return
    logger.warning(
        "worker %s takes no upload checks and no matches of uploaded code (queue %r) until its"
        " sandbox is full (probed again every %s s): %s",
        sender,
        SANDBOXED_QUEUE,
        settings.BAIZE_SANDBOX_REPROBE_SECONDS,
        sandbox.report.reason,
    )


def range_lease_waiting(*, holder: str) -> RangeLease:
    """A range of this host leased by ``holder``, once one can be had, ended of what a lapsed
    holder left in it; each failed try is logged."""
    while True:
        try:
            lease = sandbox_range_lease(holder=holder)
        except DatabaseError as error:
            logger.warning("no sandbox uid range leased yet: the database failed: %s", error)
            close_old_connections()
        else:
            if lease is not None:
                range_leftovers_end(lease)
                return lease
            logger.warning(
                "no sandbox uid range leased yet: all %s ranges of this host are held",
                settings.BAIZE_SANDBOX_RANGES,
            )
        time.sleep(LEASE_RETRY_SECONDS)


def range_leftovers_end(lease: RangeLease) -> None:
    """End what a lapsed holder of ``lease``'s range left there, and say what it was."""
    term = f"lapses {settings.BAIZE_SANDBOX_LEASE_SECONDS} s after its last renewal"
    if not lease.taken_from:
        logger.info("sandbox %s (%s)", lease.describe(), term)
        return
    leftovers = leftovers_end(lease.uid_base, lease.slots)
    logger.warning(
        "sandbox %s (%s); taken from %s, whose lease lapsed at %s: %s",
        lease.describe(),
        term,
        lease.taken_from,
        lease.lapsed_at.isoformat() if lease.lapsed_at else "?",
        leftovers.describe(),
    )


class SandboxKeeper(threading.Thread):
    """Renews the worker's lease, and probes a sandbox below full until it is full."""

    def __init__(self, consumer: Any, lease: RangeLease | None) -> None:
        super().__init__(name="baize-sandbox", daemon=True)
        self.consumer, self.lease = consumer, lease
        self.stopped = threading.Event()
        reprobe = settings.BAIZE_SANDBOX_REPROBE_SECONDS
        renew = settings.BAIZE_SANDBOX_LEASE_SECONDS / 3
        self.period = reprobe if lease is None else min(reprobe, renew)
        self.next_renewal = self.next_probe = time.monotonic()

    def run(self) -> None:
        # At once, first: the worker's start since its lease (the pool, the broker) took time.
        while True:
            now = time.monotonic()
            if self.lease is not None and now >= self.next_renewal:
                self.renew()
                self.next_renewal = now + settings.BAIZE_SANDBOX_LEASE_SECONDS / 3
            if now >= self.next_probe and not current_sandbox().report.safe:
                self.probe()
                self.next_probe = now + settings.BAIZE_SANDBOX_REPROBE_SECONDS
            if self.stopped.wait(self.period):
                return

    def renew(self) -> None:
        try:
            close_old_connections()
            renewed = sandbox_range_renew(lease=self.lease)
        except DatabaseError as error:
            # Kept while the lease runs: a lapsed one is taken only by a worker that reaches
            # the database, and this one renews as soon as it does.
            logger.warning("sandbox %s: not renewed: %s", self.lease.describe(), error)
            connections["default"].close()
            return
        if not renewed:
            logger.error(
                "sandbox %s: another worker took the range (its lease lapsed): this worker"
                " stops, and starts afresh with a range of its own",
                self.lease.describe(),
            )
            self.lease = None  # not to be released: it is the other worker's now
            os.kill(os.getpid(), signal.SIGTERM)

    def probe(self) -> None:
        sandbox = sandbox_probe_again()
        if not sandbox.report.safe:
            return
        logger.warning(
            "worker %s: sandbox level full now: it takes the queue %r",
            self.consumer.hostname,
            SANDBOXED_QUEUE,
        )
        # In the consumer's own thread, as Celery's add_consumer control command does.
        self.consumer.call_soon(self.consumer.add_task_queue, SANDBOXED_QUEUE)

    def stop(self) -> None:
        self.stopped.set()


_keepers: list[SandboxKeeper] = []


def _worker_ready(sender: Any, **kwargs: Any) -> None:
    keeper = SandboxKeeper(sender, held_range())
    keeper.start()
    _keepers.append(keeper)


def _worker_shutdown(**kwargs: Any) -> None:
    lease = held_range()
    while _keepers:
        keeper = _keepers.pop()
        keeper.stop()
        if keeper.lease is None:
            lease = None
    if lease is None:
        return
    try:
        close_old_connections()
        released = sandbox_range_release(lease=lease, clear=leftovers_end)
    except DatabaseError as error:
        logger.warning("sandbox %s: not released (it lapses): %s", lease.describe(), error)
        return
    finally:
        range_hold(None)
        worker_range_record(None)
    if released:
        logger.info("sandbox %s: released", lease.describe())
