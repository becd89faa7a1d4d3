"""Logs a machine reads: with ``LOG_FORMAT=json``, one JSON object per line.

Each line carries the time (UTC, ISO 8601), the level, the logger, the message and, where
there is one, the exception's traceback, and the ids of what the process is doing when it
logs: ``request_id`` in a web request (``monitoring.middleware``), ``task_id`` and ``task``
in a Celery task, ``match_id`` while a match is played (set by whoever plays it,
``log_context``). The ids live in context variables, so each thread of a threaded gunicorn
worker and each pool process of Celery has its own.

Celery configures logging itself unless something answers its ``setup_logging`` signal:
with ``LOG_FORMAT=json`` this module does, applying Django's ``LOGGING`` (the worker's
``--loglevel`` still sets the root level), so web, worker and beat write the same lines.
"""

from __future__ import annotations

import contextlib
import json
import logging
import logging.config
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

#: The ids a log line carries, by field name.
_CONTEXT: dict[str, ContextVar[Any]] = {
    name: ContextVar(f"baize_log_{name}", default=None)
    for name in ("request_id", "task_id", "task", "match_id")
}


@contextlib.contextmanager
def log_context(**ids: Any) -> Iterator[None]:
    """Log lines within the block carry ``ids`` (``match_id=...``), then what was before."""
    tokens = [(_CONTEXT[name], _CONTEXT[name].set(value)) for name, value in ids.items()]
    try:
        yield
    finally:
        for variable, token in reversed(tokens):
            variable.reset(token)


def log_context_set(**ids: Any) -> None:
    """Set ``ids`` until they are set again (a match played among others in one task)."""
    for name, value in ids.items():
        _CONTEXT[name].set(value)


def log_ids() -> dict[str, Any]:
    """The ids set now."""
    return {name: value for name, var in _CONTEXT.items() if (value := var.get()) is not None}


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        line.update(log_ids())
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def task_context_connect() -> None:
    """Celery tasks set ``task_id`` and ``task`` for their log lines; with JSON logs Celery
    leaves logging to Django's settings."""
    from celery.signals import setup_logging, task_postrun, task_prerun
    from django.conf import settings

    task_prerun.connect(_task_started, dispatch_uid="monitoring_log_task_started", weak=False)
    task_postrun.connect(_task_ended, dispatch_uid="monitoring_log_task_ended", weak=False)
    if settings.LOG_FORMAT == "json":
        setup_logging.connect(_celery_logging, dispatch_uid="monitoring_log_setup", weak=False)
        # A warning (Celery's about running as root, say) is a log line too, not raw text.
        logging.captureWarnings(True)


def _task_started(*, task_id: str, task: Any, **kwargs: Any) -> None:
    log_context_set(task_id=task_id, task=getattr(task, "name", None), match_id=None)


def _task_ended(**kwargs: Any) -> None:
    log_context_set(task_id=None, task=None, match_id=None)


def _celery_logging(*, loglevel: Any = None, **kwargs: Any) -> None:
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    if loglevel:
        logging.getLogger().setLevel(loglevel)
