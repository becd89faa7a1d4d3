"""``GET /api/queue/``: the queue, for everyone (``tournaments.queueing``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.queues import DEFAULT_QUEUE, SANDBOXED_QUEUE

from .queueing import (
    QueueSnapshot,
    ceil_seconds,
    queue_snapshot,
    running_by_kind,
    sent_priorities,
    waiting_work,
)


class WorkerSerializer(serializers.Serializer):
    name = serializers.CharField()
    concurrency = serializers.IntegerField(help_text="Pool processes: matches at once.")
    busy = serializers.IntegerField(help_text="Pool processes running a task.")
    queues = serializers.ListField(child=serializers.CharField(), source="queue_names")
    sandbox = serializers.CharField(help_text="Its sandbox level: full takes uploaded code.")
    sandbox_reason = serializers.CharField(help_text="Why it is below full, if it is.")
    seen_at = serializers.DateTimeField(help_text="Its last heartbeat.")


class WaitingSerializer(serializers.Serializer):
    priority = serializers.IntegerField(help_text="Celery priority: 0 is taken first.")
    kind = serializers.CharField()
    queue = serializers.CharField()
    tasks = serializers.IntegerField()
    matches = serializers.IntegerField()


class ExpectedWaitSerializer(serializers.Serializer):
    priority = serializers.IntegerField()
    queue = serializers.CharField()
    seconds = serializers.IntegerField(
        allow_null=True, help_text="null: no worker alive takes this queue."
    )


class QueueSerializer(serializers.Serializer):
    plays = serializers.BooleanField(
        help_text="A broker is configured: workers play what is sent (false: nothing plays)."
    )
    workers = WorkerSerializer(many=True, help_text="The workers alive, by heartbeat.")
    workers_alive = serializers.IntegerField()
    slots = serializers.IntegerField(help_text="Pool processes of the workers alive.")
    busy_slots = serializers.IntegerField()
    waiting = WaitingSerializer(many=True, help_text="Work waiting, by priority, kind, queue.")
    running = serializers.IntegerField(help_text="Matches running.")
    running_by_kind = serializers.DictField(child=serializers.IntegerField())
    finished_last_5_minutes = serializers.IntegerField()
    finished_last_60_minutes = serializers.IntegerField()
    expected_wait = ExpectedWaitSerializer(
        many=True, help_text="Seconds a task sent now would wait, at each priority and queue."
    )
    match_seconds = serializers.DictField(
        child=serializers.FloatField(),
        help_text="A match's expected length by game (the last hour's), pause included.",
    )


def queue_view(snapshot: QueueSnapshot) -> dict[str, Any]:
    """The queue as the API and the page show it."""
    workers = snapshot.workers
    waits = [
        {
            "priority": priority,
            "queue": queue,
            "seconds": ceil_seconds(
                snapshot.expected_wait(priority=priority, sandboxed=queue == SANDBOXED_QUEUE)
            )
            if snapshot.plays
            else None,
        }
        for priority in sent_priorities()
        for queue in (DEFAULT_QUEUE, SANDBOXED_QUEUE)
    ]
    return {
        "plays": snapshot.plays,
        "workers": workers,
        "workers_alive": len(workers),
        "slots": snapshot.slots,
        "busy_slots": sum(worker.busy for worker in workers),
        "waiting": waiting_work(snapshot),
        "running": len(snapshot.running),
        "running_by_kind": running_by_kind(snapshot),
        "finished_last_5_minutes": snapshot.finished_5_minutes,
        "finished_last_60_minutes": snapshot.finished_60_minutes,
        "expected_wait": waits,
        "match_seconds": {
            game: round(seconds + snapshot.costs.pause, 2)
            for game, seconds in sorted(snapshot.costs.by_game.items())
        },
    }


class QueueApi(APIView):
    """What waits at each priority and kind, what runs, the workers alive, the matches
    finished lately, and how long work sent now can expect to wait."""

    @extend_schema(responses=QueueSerializer)
    def get(self, request: Request) -> Response:
        return Response(QueueSerializer(queue_view(queue_snapshot())).data)
