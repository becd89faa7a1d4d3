"""Imported into a test worker (``celery_workers(hook=...)``): each of its pool processes
logs a match's result, then dies before the match's row records it.

That is the gap a worker killed between the last event and the row update used to leave
(the two are now one commit): a complete log on a running row. Each death is noted, by
match id, in the file ``BAIZE_TEST_DEATHS`` names.
"""

from __future__ import annotations

import os
import signal

from celery.signals import worker_process_init


@worker_process_init.connect
def _die_after_logging_each_result(**_: object) -> None:
    from django.db import transaction

    from matches import services

    def log_the_result_then_die(*, match, events, result, **_: object) -> None:
        with transaction.atomic():
            services._append(match, services._checked_batch(events))
        with open(os.environ["BAIZE_TEST_DEATHS"], "a") as deaths:
            deaths.write(f"{match.pk}\n")
        os.kill(os.getpid(), signal.SIGKILL)

    services.match_finish = log_the_result_then_die
