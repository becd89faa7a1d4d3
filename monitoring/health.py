"""Readiness: can this process serve? Its database reachable and migrated, Redis (the shared
cache, where it is Redis) and the broker reachable.

Each check answers ``None`` when its part is fine, else what is wrong; ``readiness`` runs
them all, so a 503 names every failing part at once. Each waits at most ``TIMEOUT_SECONDS``.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

#: Seconds a check waits for its part to answer.
TIMEOUT_SECONDS = 2.0

#: A process that found its database migrated once keeps it: migrations come with a deploy,
#: which starts new processes.
_migrated = False


def database_problem() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:
        connection.close_if_unusable_or_obsolete()
        return f"unreachable: {_said(error)}"
    return None


def migrations_problem() -> str | None:
    global _migrated
    if _migrated:
        return None
    try:
        executor = MigrationExecutor(connection)
        unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as error:
        return f"unreadable: {_said(error)}"
    if unapplied:
        names = ", ".join(f"{m.app_label}.{m.name}" for m, _ in unapplied[:5])
        return f"{len(unapplied)} not applied ({names}{', ...' if len(unapplied) > 5 else ''})"
    _migrated = True
    return None


def cache_problem() -> str | None:
    cache = settings.CACHES["default"]
    if "redis" not in cache["BACKEND"].lower():
        return None
    return _redis_problem(cache["LOCATION"])


def broker_problem() -> str | None:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return None
    return _redis_problem(settings.CELERY_BROKER_URL)


def _redis_problem(url: str) -> str | None:
    import redis

    client = redis.Redis.from_url(
        url, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS
    )
    try:
        client.ping()
    except Exception as error:
        return f"unreachable: {_said(error)}"
    finally:
        client.close()
    return None


def _said(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300]


#: The parts of readiness, in the order they are reported.
CHECKS: dict[str, Callable[[], str | None]] = {
    "database": database_problem,
    "migrations": migrations_problem,
    "cache": cache_problem,
    "broker": broker_problem,
}


def readiness() -> dict[str, str]:
    """Each part's state: ``ok``, or what is wrong with it (migrations are read only once
    the database answers)."""
    states: dict[str, str] = {}
    for name, check in CHECKS.items():
        if name == "migrations" and states.get("database", "ok") != "ok":
            states[name] = "not read: the database is unreachable"
            continue
        states[name] = check() or "ok"
    return states
