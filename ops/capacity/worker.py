"""The Celery application of the capacity run's workers: ``config.celery``'s, counted.

``celery -A ops.capacity.worker worker`` runs the very tasks and settings of ``make
worker``; each pool process, and the main process once the pool is up, counts what it says
to PostgreSQL and Redis into ``BAIZE_CAPACITY_COUNTS`` (``ops.capacity.counters``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from celery import signals

from config.celery import app

from . import counters

__all__ = ["app"]


def _directory() -> Path:
    return Path(os.environ["BAIZE_CAPACITY_COUNTS"])


@signals.worker_process_init.connect
def _count_pool_process(**kwargs: Any) -> None:
    counters.install(_directory(), "pool")


@signals.worker_ready.connect
def _count_main_process(**kwargs: Any) -> None:
    # Once the pool is forked: its processes start with counts of their own.
    counters.install(_directory(), "consumer")
    (_directory() / f"ready-{os.getpid()}").touch()
