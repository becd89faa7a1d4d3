"""Celery tasks of the bots app: load by id, call the service."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import celeryd_after_setup

from .queues import SANDBOXED_QUEUE
from .services.check import bot_version_check
from .services.code_cache import CodeUnavailable

logger = logging.getLogger(__name__)


#: Retries of a task whose bot code no store gave: 5 s, doubling up to 5 minutes, ~1 hour.
CODE_RETRY = {
    "autoretry_for": (CodeUnavailable,),
    "retry_backoff": 5,
    "retry_backoff_max": 300,
    "max_retries": 15,
}


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True, **CODE_RETRY)
def bot_version_check_task(version_id: int) -> None:
    """Check an uploaded version; a second delivery finds it decided and does nothing.

    A worker that cannot get the version's code retries later (``CODE_RETRY``).
    """
    bot_version_check(version_id=version_id)


@celeryd_after_setup.connect
def consume_sandboxed_queue_if_safe(sender: str, instance: Any, **kwargs: Any) -> None:
    """Probe the sandbox before the worker consumes anything; only a safe one takes uploads."""
    from .services.launch import current_sandbox

    sandbox = current_sandbox()
    if sandbox.report.safe:
        instance.app.amqp.queues.select_add(SANDBOXED_QUEUE)
        return
    logger.warning(
        "worker %s takes no upload checks and no matches of uploaded code (queue %r): %s",
        sender,
        SANDBOXED_QUEUE,
        sandbox.report.reason,
    )
