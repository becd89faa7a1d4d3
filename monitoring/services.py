"""The one writer of the workers' heartbeats."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.utils import timezone

from .models import WorkerHeartbeat


def worker_heartbeat_beat(
    *,
    name: str,
    pid: int,
    concurrency: int,
    busy: int,
    queues: Sequence[str],
    sandbox: str,
    sandbox_reason: str,
    started_at: datetime,
) -> None:
    """Record that the worker ``name`` is alive now, as it is."""
    WorkerHeartbeat.objects.update_or_create(
        name=name,
        defaults={
            "pid": pid,
            "concurrency": concurrency,
            "busy": min(busy, concurrency),
            "queues": ",".join(sorted(queues)),
            "sandbox": sandbox,
            "sandbox_reason": sandbox_reason,
            "started_at": started_at,
            "seen_at": timezone.now(),
        },
    )


def worker_heartbeat_forget(*, name: str) -> None:
    """The worker ``name`` stopped cleanly: it is gone at once, not after its beats lapse."""
    WorkerHeartbeat.objects.filter(name=name).delete()
