"""A worker's or the beat's heartbeat, and a worker's own metrics endpoint.

A Celery worker's main process runs ``WorkerHeartbeat``, a thread that every
``BEAT_SECONDS`` records the worker in the database (``monitoring.services``: what the queue
page and the metrics count) and writes the same facts to a file of its host
(``heartbeat_dir()``), which the container's health check reads without starting Django
(``deploy/healthcheck``). The beat writes its file each time it sends a task
(``beat_heartbeat_write``): it is alive while its ticks go out.

A worker that shares no ``PROMETHEUS_MULTIPROC_DIR`` with a web process (another host, its
own container) serves its processes' metrics itself on ``BAIZE_WORKER_METRICS_PORT``
(``worker_metrics_serve``), to the same token as ``/metrics``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from . import exposition, services
from .selectors import BEAT_SECONDS

logger = logging.getLogger(__name__)


def heartbeat_dir() -> Path:
    return Path(settings.VAR_DIR) / "heartbeats"


def heartbeat_file(kind: str, name: str) -> Path:
    """Where a ``kind`` (``worker`` or ``beat``) of this host writes its heartbeat."""
    return heartbeat_dir() / f"{kind}-{re.sub(r'[^A-Za-z0-9._-]', '_', name)}.json"


def heartbeat_write(path: Path, facts: dict[str, Any]) -> None:
    """The facts and the time, replaced at once (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps({**facts, "seen_at": time.time()}))
    partial.replace(path)


class WorkerHeartbeat(threading.Thread):
    """Beats for one worker until ``stop``; ``describe()`` says what the worker is now:
    ``name``, ``concurrency``, ``busy``, ``queues``, ``sandbox``, ``sandbox_reason``."""

    def __init__(self, describe: Callable[[], dict[str, Any]]) -> None:
        super().__init__(name="baize-heartbeat", daemon=True)
        self.describe = describe
        self.stopped = threading.Event()
        self.started_at = timezone.now()

    def run(self) -> None:
        while True:
            self.beat()
            if self.stopped.wait(BEAT_SECONDS):
                return

    def beat(self) -> None:
        facts = self.describe()
        database = "ok"
        try:
            close_old_connections()
            services.worker_heartbeat_beat(**facts, pid=os.getpid(), started_at=self.started_at)
        except Exception as error:
            # The database may be down: the worker lives on, and says so in its file.
            database = f"unreachable: {type(error).__name__}: {error}"[:300]
            logger.warning("heartbeat of %s not recorded: %s", facts["name"], database)
            connection.close()
        heartbeat_write(heartbeat_file("worker", facts["name"]), {**facts, "database": database})

    def stop(self) -> None:
        self.stopped.set()
        name = self.describe()["name"]
        try:
            services.worker_heartbeat_forget(name=name)
        except Exception:
            logger.warning("heartbeat of %s not removed; it lapses on its own", name)
        heartbeat_file("worker", name).unlink(missing_ok=True)


def beat_heartbeat_write(name: str) -> None:
    try:
        heartbeat_write(heartbeat_file("beat", name), {"name": name})
    except OSError as error:
        logger.warning("beat heartbeat not written: %s", error)


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def worker_metrics_serve(port: int) -> None:
    """Serve this worker's recorded metrics on ``port`` (all addresses), in a thread."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        allowed = exposition.scrape_allowed(
            user=None,
            authorization=environ.get("HTTP_AUTHORIZATION", ""),
            token=settings.BAIZE_METRICS_TOKEN,
        )
        if environ.get("PATH_INFO") != "/metrics" or not allowed:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"no metrics here\n"]
        body = exposition.scrape(scrape_time=False)
        start_response("200 OK", [("Content-Type", "text/plain; version=0.0.4")])
        return [body]

    server = make_server("", port, app, handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, name="baize-metrics", daemon=True).start()
