"""Celery tasks of the bots app: load by id, call the service."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready

from .uploads import bot_version_check


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def bot_version_check_task(version_id: int) -> None:
    """Check an uploaded version; a second delivery finds it decided and does nothing."""
    bot_version_check(version_id=version_id)


@worker_ready.connect
def probe_sandbox_at_start(**kwargs: object) -> None:
    """Probe the sandbox as the worker starts: its level is logged (a warning below safe)."""
    from .sandbox import current_sandbox

    current_sandbox()
