"""Celery tasks of the bots app: load by id, call the service."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from django.core.exceptions import ObjectDoesNotExist

from base.retry import retrying

from .services.check import bot_version_check, version_check_failed
from .services.code_cache import CodeUnavailable
from .services.launch import SandboxNotReady

logger = logging.getLogger(__name__)


#: Retries of a task whose bot code no store gave (``base.retry``: about an hour).
CODE_RETRY = retrying(CodeUnavailable)


#: Retries of a check: as ``CODE_RETRY``, and for any error that stopped it (the database
#: failed, its verdict could not be stored), each saying why on the version; not for a
#: version that is gone.
CHECK_RETRY = {
    **CODE_RETRY,
    "autoretry_for": (Exception,),
    "dont_autoretry_for": (ObjectDoesNotExist,),
}


@shared_task(
    bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True, **CHECK_RETRY
)
def bot_version_check_task(self: Task, version_id: int) -> None:
    """Check an uploaded version; a second delivery finds it decided and does nothing.

    A worker that cannot get the version's code retries later (``CODE_RETRY``), the version
    pending and saying so; so does a pool process whose sandbox fell below full (another
    worker, or this one once its sandbox is full again, takes it). Where tasks run
    in-process there is no other worker: the version waits, saying why. A check stopped by
    any other error is never left pending in silence: the version says why and the check
    runs again, with the same backoff; once the retries are spent, or at once where tasks
    run in-process (a retry there would run again at once, inside the request), the version
    is rejected, saying why.
    """
    try:
        bot_version_check(version_id=version_id)
    except SandboxNotReady:
        if self.request.is_eager:
            return
        raise
    except (CodeUnavailable, ObjectDoesNotExist):
        raise
    except Exception as error:
        final = bool(self.request.is_eager) or self.request.retries >= self.max_retries
        version_check_failed(version_id=version_id, error=error, final=final)
        if not final:
            raise
        logger.error("version %s: its check failed for good", version_id, exc_info=error)
