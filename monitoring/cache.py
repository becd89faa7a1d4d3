"""The cache backends Baize uses, counting their reads as hits and misses
(``baize_cache_gets_total``); otherwise Django's own."""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache

from . import metrics

_MISSING = object()
_HIT = metrics.cache_gets.labels("hit")
_MISS = metrics.cache_gets.labels("miss")


class _CountedReads:
    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        value = super().get(key, _MISSING, version)  # type: ignore[misc]
        if value is _MISSING:
            _MISS.inc()
            return default
        _HIT.inc()
        return value

    def get_many(self, keys: Any, version: int | None = None) -> dict[str, Any]:
        keys = list(keys)
        found = super().get_many(keys, version)  # type: ignore[misc]
        _HIT.inc(len(found))
        _MISS.inc(len(keys) - len(found))
        return found


class CountedRedisCache(_CountedReads, RedisCache):
    pass


class CountedDatabaseCache(_CountedReads, DatabaseCache):
    pass


class CountedLocMemCache(_CountedReads, LocMemCache):
    pass


#: Django's backend -> the same backend counting its reads.
COUNTED = {
    "django.core.cache.backends.redis.RedisCache": "monitoring.cache.CountedRedisCache",
    "django.core.cache.backends.db.DatabaseCache": "monitoring.cache.CountedDatabaseCache",
    "django.core.cache.backends.locmem.LocMemCache": "monitoring.cache.CountedLocMemCache",
}
