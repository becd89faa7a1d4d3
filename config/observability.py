"""The settings of monitoring that need more than one line: where multiprocess metrics
live, which cache backend counts its reads, the log formatters."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

#: Django's cache backend -> the same backend counting its reads (``monitoring.cache``).
_COUNTED_CACHES = {
    "django.core.cache.backends.redis.RedisCache": "monitoring.cache.CountedRedisCache",
    "django.core.cache.backends.db.DatabaseCache": "monitoring.cache.CountedDatabaseCache",
    "django.core.cache.backends.locmem.LocMemCache": "monitoring.cache.CountedLocMemCache",
}


def metrics_multiprocess_dir() -> Path | None:
    """``PROMETHEUS_MULTIPROC_DIR``, created if missing; a path that cannot be written stops
    the process (every metric would fail at its first count)."""
    raw = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
    if not raw:
        return None
    path = Path(raw)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ImproperlyConfigured(f"PROMETHEUS_MULTIPROC_DIR cannot be created: {error}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ImproperlyConfigured(f"PROMETHEUS_MULTIPROC_DIR is not writable: {raw!r}")
    return path


def cache_counting_reads(cache: dict[str, Any]) -> dict[str, Any]:
    return {**cache, "BACKEND": _COUNTED_CACHES.get(cache["BACKEND"], cache["BACKEND"])}


def log_formatters() -> dict[str, Any]:
    """The formatter of each ``LOG_FORMAT``: the message alone, as before, or one JSON
    object a line."""
    return {
        "text": {},
        "json": {"()": "monitoring.logs.JsonFormatter"},
    }
