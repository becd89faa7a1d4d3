"""Imported into a test worker (``celery_workers(hook=...)``): versions of bots named
``holder`` play as ``holding_bot.py``, which holds one match mid-play until released.

``BAIZE_TEST_HOLD_DIR`` names the folder the bot and the test share.
"""

from __future__ import annotations

import os
from pathlib import Path

from celery.signals import worker_process_init

HOLDING_BOT = Path(__file__).with_name("holding_bot.py")


@worker_process_init.connect
def _play_holders_as_the_holding_bot(**_: object) -> None:
    from arena.runner import ScriptLauncher
    from matches import play

    builtin_launcher = play.launcher_for

    def launcher_for(version, **overrides):
        if version.bot.name == "holder":
            return ScriptLauncher(HOLDING_BOT, (os.environ["BAIZE_TEST_HOLD_DIR"],))
        return builtin_launcher(version, **overrides)

    play.launcher_for = launcher_for
