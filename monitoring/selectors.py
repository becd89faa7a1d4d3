"""Reads of the workers' heartbeats."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from .models import WorkerHeartbeat

#: Seconds between two heartbeats of a worker.
BEAT_SECONDS = 5.0
#: A worker not seen for this long is taken for dead: three beats missed, and some slack.
ALIVE_SECONDS = 4 * BEAT_SECONDS


def workers_alive(*, now: datetime | None = None) -> list[WorkerHeartbeat]:
    """The workers whose heartbeat is recent, by name."""
    since = (now or timezone.now()) - timedelta(seconds=ALIVE_SECONDS)
    return list(WorkerHeartbeat.objects.filter(seen_at__gte=since))
