"""Celery tasks of the bots app: load by id, call the service."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready

from .uploads import bot_version_check

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def bot_version_check_task(version_id: int) -> None:
    """Check an uploaded version; a second delivery finds it decided and does nothing."""
    bot_version_check(version_id=version_id)


@worker_ready.connect
def report_sandbox_level(**kwargs: object) -> None:
    """Probe the sandbox as the worker starts, so its level is in the worker's log at once."""
    from .sandbox import current_sandbox

    report = current_sandbox().report
    (logger.info if report.safe else logger.warning)("%s", report.describe())
