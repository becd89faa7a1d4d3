"""Celery tasks of the ladder: the periodic tick, sent by beat every ``BAIZE_TICK_SECONDS``."""

from __future__ import annotations

from celery import shared_task

from .services import ladder_tick


@shared_task(ignore_result=True)
def ladder_tick_task() -> None:
    ladder_tick()
