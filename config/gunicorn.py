"""gunicorn's settings for Baize (``gunicorn -c config/gunicorn.py config.wsgi:application``):
its own log lines as JSON when ``LOG_FORMAT=json``, and the multiprocess metrics of a
worker that exits left to the scrape as they are (counters keep counting what it did;
only its live gauges are dropped)."""

from __future__ import annotations

import os

if os.environ.get("LOG_FORMAT", "").lower() == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "monitoring.logs.JsonFormatter"}},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "json"},
        },
        "loggers": {
            "gunicorn.error": {"handlers": ["console"], "level": "INFO", "propagate": False},
            "gunicorn.access": {"handlers": ["console"], "level": "INFO", "propagate": False},
        },
    }


def child_exit(server: object, worker: object) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]
