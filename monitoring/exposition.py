"""What a scrape of ``/metrics`` answers: the recorded metrics of every process, and what is
read at scrape time.

Recorded metrics come from this process alone, or, in multiprocess mode, from every
process's files in ``PROMETHEUS_MULTIPROC_DIR`` (``MultiProcessCollector``). Values that
are a reading of shared state rather than a count of events (the broker's queue depth,
the workers alive by their heartbeats) are read when the scrape comes, by the collectors
in ``SCRAPE_COLLECTORS``: a table the apps add to (``scrape_collector_add``), so that this
module knows no app.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Iterable

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from . import metrics, selectors

logger = logging.getLogger(__name__)

#: A reading taken at scrape time: the metric families it yields.
ScrapeCollector = Callable[[], Iterable[Metric]]

SCRAPE_COLLECTORS: dict[str, ScrapeCollector] = {}


def scrape_collector_add(name: str, collect: ScrapeCollector) -> None:
    """Read ``collect`` at every scrape (a second add under ``name`` replaces the first)."""
    SCRAPE_COLLECTORS[name] = collect


class _ScrapeTime:
    """The table's collectors as one; a reading that fails is left out, and logged."""

    def collect(self) -> Iterable[Metric]:
        for name, collect in list(SCRAPE_COLLECTORS.items()):
            try:
                yield from list(collect())
            except Exception:
                logger.exception("metrics: the %s reading failed; left out of this scrape", name)


def scrape(*, scrape_time: bool = True) -> bytes:
    """The text exposition of every metric; with ``scrape_time``, the readings too (a web
    process's scrape: a worker's own endpoint leaves them to the web, which reads the same)."""
    registry = CollectorRegistry()
    if metrics.MULTIPROCESS_DIR is None:
        registry.register(_Recorded())
    else:
        MultiProcessCollector(registry, path=metrics.MULTIPROCESS_DIR)
    if scrape_time:
        registry.register(_ScrapeTime())
    return generate_latest(registry)


class _Recorded:
    """This process's own registry (single-process mode): Baize's metrics and the process's."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


def workers_collect() -> Iterable[Metric]:
    """Workers alive by their heartbeats, their pool slots and the slots busy."""
    alive = GaugeMetricFamily(
        "baize_workers_alive",
        "Celery workers whose heartbeat is recent, by sandbox level.",
        labels=["sandbox"],
    )
    slots = GaugeMetricFamily(
        "baize_worker_slots", "Pool processes of the workers alive, by state.", labels=["state"]
    )
    workers = selectors.workers_alive()
    levels: dict[str, int] = {}
    for worker in workers:
        levels[worker.sandbox] = levels.get(worker.sandbox, 0) + 1
    for level, count in sorted(levels.items()):
        alive.add_metric([level], count)
    busy = sum(worker.busy for worker in workers)
    total = sum(worker.concurrency for worker in workers)
    slots.add_metric(["busy"], busy)
    slots.add_metric(["idle"], max(total - busy, 0))
    return [alive, slots]


def scrape_allowed(*, user: object, authorization: str, token: str) -> bool:
    """Staff, or a request carrying ``Authorization: Bearer <token>`` when a token is set."""
    if getattr(user, "is_staff", False) and getattr(user, "is_active", False):
        return True
    if not token:
        return False
    given = authorization.removeprefix("Bearer ").strip()
    return hmac.compare_digest(given.encode(), token.encode())
