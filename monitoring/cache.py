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


class _CountedGet:
    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        value = super().get(key, _MISSING, version)  # type: ignore[misc]
        if value is _MISSING:
            _MISS.inc()
            return default
        _HIT.inc()
        return value


class _CountedGetMany:
    def get_many(self, keys: Any, version: int | None = None) -> dict[str, Any]:
        keys = list(keys)
        found = super().get_many(keys, version)  # type: ignore[misc]
        # Each count is a write to a shared file in multiprocess mode: none for nothing.
        if found:
            _HIT.inc(len(found))
        if len(found) < len(keys):
            _MISS.inc(len(keys) - len(found))
        return found


# Each read counted once, where the backend does it: Redis reads one key or many itself,
# the database cache reads one key as many (``get`` calls ``get_many``), and the base class,
# which the local-memory cache keeps, reads many keys one by one (``get_many`` calls ``get``).
class CountedRedisCache(_CountedGet, _CountedGetMany, RedisCache):
    pass


class CountedDatabaseCache(_CountedGetMany, DatabaseCache):
    pass


class CountedLocMemCache(_CountedGet, LocMemCache):
    pass


#: Django's backend -> the same backend counting its reads.
COUNTED = {
    "django.core.cache.backends.redis.RedisCache": "monitoring.cache.CountedRedisCache",
    "django.core.cache.backends.db.DatabaseCache": "monitoring.cache.CountedDatabaseCache",
    "django.core.cache.backends.locmem.LocMemCache": "monitoring.cache.CountedLocMemCache",
}
