"""What the bots app tells the monitoring: its workers' heartbeats, the beat's, its queues'
depth, and each upload's check and build.

All of it hangs on Celery's signals, from outside the check and the build themselves: a
worker starts its heartbeat once it is ready (its sandbox probed, its queues chosen,
``bots.tasks``) and ends it at shutdown; the beat writes its heartbeat as each task goes
out; an upload's check is timed around its task, and its build from the check's start to
the statement that records the build on the version (the one ``UPDATE`` of a version
that sets its ``build_key``), which the check's database connection shows as it goes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection
from prometheus_client.core import GaugeMetricFamily, Metric

from arena.runtimes import RUNTIMES
from base.queues import (
    AUTHOR_PRIORITY,
    DEFAULT_QUEUE,
    FILLER_PRIORITY,
    FIRST_PRIORITY,
    PRIORITY_STEPS,
    SANDBOXED_QUEUE,
)
from monitoring import heartbeat, metrics
from monitoring.exposition import scrape_collector_add

from .models import BotVersion

logger = logging.getLogger(__name__)

CHECK_TASK = "bots.tasks.bot_version_check_task"
#: The priorities always reported, even empty: those Baize sends at.
_PRIORITIES = (FIRST_PRIORITY, AUTHOR_PRIORITY, FILLER_PRIORITY)
#: Kombu's separator between a queue and its priority (``CELERY_BROKER_TRANSPORT_OPTIONS``).
_SEPARATOR = ":"


def connect() -> None:
    """Hook the monitoring onto Celery's signals; the queue depth onto every scrape."""
    from celery import signals

    signals.worker_ready.connect(_worker_ready, dispatch_uid="bots_heartbeat", weak=False)
    signals.worker_shutdown.connect(_worker_shutdown, dispatch_uid="bots_heartbeat", weak=False)
    signals.beat_init.connect(_beat_started, dispatch_uid="bots_beat_heartbeat", weak=False)
    if settings.BAIZE_METRICS:
        signals.task_prerun.connect(_check_started, dispatch_uid="bots_check", weak=False)
        signals.task_postrun.connect(_check_ended, dispatch_uid="bots_check", weak=False)
        scrape_collector_add("queues", queues_collect)


# --- The workers' and the beat's heartbeats ------------------------------------------------

_beating: list[heartbeat.WorkerHeartbeat] = []


def _worker_ready(sender: Any, **kwargs: Any) -> None:
    from celery.worker import state

    from .services.launch import current_sandbox

    consumer = sender

    def describe() -> dict[str, Any]:
        # As probed last: a worker below full probes again until it is (bots.worker_sandbox).
        report = current_sandbox().report
        return {
            "name": consumer.hostname,
            "concurrency": consumer.controller.concurrency,
            "busy": len(state.active_requests),
            "queues": sorted(consumer.app.amqp.queues.consume_from),
            "sandbox": report.level.name.lower(),
            "sandbox_reason": "" if report.safe else report.reason,
        }

    beating = heartbeat.WorkerHeartbeat(describe)
    beating.start()
    _beating.append(beating)
    if settings.BAIZE_METRICS and settings.BAIZE_WORKER_METRICS_PORT:
        heartbeat.worker_metrics_serve(settings.BAIZE_WORKER_METRICS_PORT)


def _worker_shutdown(**kwargs: Any) -> None:
    while _beating:
        _beating.pop().stop()


def _beat_started(sender: Any, **kwargs: Any) -> None:
    from celery import signals

    name = f"beat@{_host()}"
    heartbeat.beat_heartbeat_write(name)

    def sent(**kwargs: Any) -> None:
        heartbeat.beat_heartbeat_write(name)

    signals.after_task_publish.connect(sent, dispatch_uid="bots_beat_sent", weak=False)


def _host() -> str:
    import socket

    return socket.gethostname()


# --- Queue depth ---------------------------------------------------------------------------


def queues_collect() -> Iterable[Metric]:
    """Messages waiting in the broker's lists, per queue and priority (none without one)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return []
    import redis

    depth = GaugeMetricFamily(
        "baize_queue_messages",
        "Tasks waiting in the broker, by queue and Celery priority (0 is taken first).",
        labels=["queue", "priority"],
    )
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2)
    try:
        keys = [
            (queue, priority)
            for queue in (DEFAULT_QUEUE, SANDBOXED_QUEUE)
            for priority in PRIORITY_STEPS
        ]
        pipe = client.pipeline(transaction=False)
        for queue, priority in keys:
            pipe.llen(f"{queue}{_SEPARATOR}{priority}" if priority else queue)
        for (queue, priority), count in zip(keys, pipe.execute(), strict=True):
            if count or priority in _PRIORITIES:
                depth.add_metric([queue, str(priority)], count)
    finally:
        client.close()
    return [depth]


# --- Upload checks and builds --------------------------------------------------------------


@dataclass
class _Check:
    version_id: int
    runtime: str
    started: float
    build_recorded: float | None = None
    wrapper: Any = field(default=None, repr=False)


_checks: dict[str, _Check] = {}


def _check_started(
    *, task_id: str, task: Any, args: Any = (), kwargs: Any = None, **_: Any
) -> None:
    if getattr(task, "name", None) != CHECK_TASK:
        return
    try:
        version_id = int((args or [None])[0] if args else (kwargs or {})["version_id"])
        runtime = BotVersion.objects.values_list("runtime", flat=True).get(id=version_id)
    except Exception:
        return
    check = _Check(version_id, runtime, time.monotonic())

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        result = execute(sql, params, many, context)
        if check.build_recorded is None and _records_a_build(sql):
            check.build_recorded = time.monotonic()
        return result

    check.wrapper = watch
    connection.execute_wrappers.append(watch)
    _checks[task_id] = check


def _records_a_build(sql: str) -> bool:
    return sql.startswith("UPDATE") and "bots_botversion" in sql and '"build_key" =' in sql


def _check_ended(*, task_id: str, **kwargs: Any) -> None:
    check = _checks.pop(task_id, None)
    if check is None:
        return
    if check.wrapper in connection.execute_wrappers:
        connection.execute_wrappers.remove(check.wrapper)
    try:
        check_observe(check)
    except Exception:
        logger.exception("metrics: the check of version %s not counted", check.version_id)


def check_observe(check: _Check) -> None:
    seconds = time.monotonic() - check.started
    version = BotVersion.objects.get(id=check.version_id)
    outcome = str(version.status)
    metrics.upload_checks.labels(check.runtime, outcome).inc()
    metrics.upload_check_duration.labels(check.runtime, outcome).observe(seconds)
    runtime = RUNTIMES.get(check.runtime)
    if runtime is None or not runtime.built or check.build_recorded is None:
        return
    build = build_outcome(version)
    metrics.builds.labels(check.runtime, build).inc()
    if build != "reused":
        recorded = check.build_recorded - check.started
        metrics.build_duration.labels(check.runtime, build).observe(recorded)


def build_outcome(version: BotVersion) -> str:
    """``failed`` (no build stored), ``reused`` (an earlier version's build of the same
    sources and toolchain) or ``built``."""
    if not version.build_hash:
        return "failed"
    earlier = (
        BotVersion.objects.filter(build_key=version.build_key, id__lt=version.pk)
        .exclude(build_hash="")
        .exists()
    )
    return "reused" if earlier else "built"
