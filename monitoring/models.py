"""A Celery worker's heartbeat: one row per worker, renewed while it runs.

Every host's workers write here (the database is what they all share), so the queue page,
the metrics and the expected waits know which workers are alive, their pool slots and how
many are busy, and whether their sandbox takes uploaded code. A worker that stopped
cleanly deletes its row; one that died stops renewing it and is no longer counted once
its ``seen_at`` is older than ``monitoring.selectors.ALIVE_SECONDS``.
"""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    #: Celery's node name (``celery@host``), unique among the workers of a broker.
    name = models.CharField(max_length=255, unique=True)
    pid = models.PositiveIntegerField()
    #: Pool processes: matches (or checks) it can run at once.
    concurrency = models.PositiveSmallIntegerField()
    #: Pool processes running a task at the last beat.
    busy = models.PositiveSmallIntegerField(default=0)
    #: The queues it consumes, comma-separated.
    queues = models.CharField(max_length=255)
    #: Its sandbox's level (``full`` takes uploaded code), and why it is below, if it is.
    sandbox = models.CharField(max_length=32)
    sandbox_reason = models.TextField(blank=True)
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"worker {self.name} ({self.busy}/{self.concurrency} busy, sandbox {self.sandbox})"

    @property
    def queue_names(self) -> list[str]:
        return [name for name in self.queues.split(",") if name]
