"""Imported into a test worker (``celery_workers(hook=...)``-style): every bot plays as
``slow_bot.py``, thinking ``BAIZE_TEST_DECISION_SECONDS`` per decision."""

from __future__ import annotations

import os
from pathlib import Path

from celery.signals import worker_process_init

SLOW_BOT = Path(__file__).with_name("slow_bot.py")


@worker_process_init.connect
def _play_every_bot_slowly(**_: object) -> None:
    from arena.runner import ScriptLauncher
    from matches import play

    seconds = os.environ["BAIZE_TEST_DECISION_SECONDS"]
    play.launcher_for = lambda version, **overrides: ScriptLauncher(SLOW_BOT, (seconds,))
