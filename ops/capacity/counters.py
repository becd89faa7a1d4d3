"""What one process says to PostgreSQL and Redis, counted inside it.

``install`` wraps the drivers of the process (psycopg's connections and every Django
connection's statements; redis-py's connections, which Celery's broker transport and the
cache use) and starts a thread that writes the counts, with the time, to a file of its own
every ``PERIOD`` seconds. The capacity run reads those files to take each process's counts
at the start and at the end of a run (``counts_between``), so a worker's idle polling before
the run is not charged to the run's matches.

What is counted:

- ``statements``: every statement Django sends (ORM and raw SQL alike, savepoints included);
- ``transactions``: every transaction committed or rolled back that had begun: each costs a
  ``BEGIN`` and a ``COMMIT`` (or ``ROLLBACK``) beside its statements;
- ``connections``: PostgreSQL connections opened;
- ``round_trips``: ``statements + 2 * transactions + 3 * connections``: psycopg sends each
  statement alone and waits for its result; a connection's start-up (startup and
  authentication, then Django's two settings queries) is counted as three;
- ``redis_commands`` (and ``redis_round_trips``, a pipeline being one), by command name.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: How often each process writes its counts (seconds).
PERIOD = 0.5
#: Round trips a new PostgreSQL connection costs before its first statement.
CONNECT_ROUND_TRIPS = 3

_counts: Counter[str] = Counter()
_lock = threading.Lock()


def _add(**amounts: int) -> None:
    with _lock:
        _counts.update(amounts)


def snapshot() -> dict[str, int]:
    with _lock:
        return dict(_counts)


def install(directory: Path, role: str) -> None:
    """Count this process's statements and commands, and write them under ``directory``
    every ``PERIOD`` seconds (and once more at exit) as ``{role}-{pid}.jsonl``."""
    _install_psycopg()
    _install_django()
    _install_redis()
    path = directory / f"{role}-{os.getpid()}.jsonl"
    thread = threading.Thread(target=_keep_writing, args=(path,), daemon=True)
    thread.start()


def write_now(path: Path) -> None:
    line = json.dumps({"t": time.time(), **snapshot()})
    with path.open("a") as file:
        file.write(line + "\n")


def _keep_writing(path: Path) -> None:
    while True:
        try:
            write_now(path)
        except OSError:
            return  # the run's folder is gone: nobody reads the counts any more
        time.sleep(PERIOD)


def _install_psycopg() -> None:
    import psycopg
    from psycopg.pq import TransactionStatus

    if getattr(psycopg.Connection, "_capacity_counted", False):
        return
    commit, rollback = psycopg.Connection.commit, psycopg.Connection.rollback

    def counted_commit(self: Any) -> None:
        if self.info.transaction_status != TransactionStatus.IDLE:
            _add(transactions=1)
        commit(self)

    def counted_rollback(self: Any) -> None:
        if self.info.transaction_status != TransactionStatus.IDLE:
            _add(transactions=1)
        rollback(self)

    psycopg.Connection.commit = counted_commit
    psycopg.Connection.rollback = counted_rollback
    psycopg.Connection._capacity_counted = True


def _count_statement(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
    _add(statements=1)
    return execute(sql, params, many, context)


def _install_django() -> None:
    from django.db import connections
    from django.db.backends.signals import connection_created

    for connection in connections.all():
        if _count_statement not in connection.execute_wrappers:
            connection.execute_wrappers.append(_count_statement)

    def wrap(sender: Any, connection: Any, **kwargs: Any) -> None:
        _add(connections=1)
        if _count_statement not in connection.execute_wrappers:
            connection.execute_wrappers.append(_count_statement)

    connection_created.connect(wrap, weak=False, dispatch_uid="capacity-counters")


def _install_redis() -> None:
    from redis.connection import AbstractConnection

    if getattr(AbstractConnection, "_capacity_counted", False):
        return
    send_command, pack_commands = AbstractConnection.send_command, AbstractConnection.pack_commands

    def counted_send(self: Any, *args: Any, **kwargs: Any) -> Any:
        _add(redis_round_trips=1, **{f"redis:{_name(args)}": 1})
        return send_command(self, *args, **kwargs)

    def counted_pack(self: Any, commands: Iterable[Any]) -> Any:
        commands = list(commands)
        names = Counter(f"redis:{_name(args)}" for args in commands)
        _add(redis_round_trips=1, **names)
        return pack_commands(self, commands)

    AbstractConnection.send_command = counted_send
    AbstractConnection.pack_commands = counted_pack
    AbstractConnection._capacity_counted = True


def _name(args: Any) -> str:
    name = args[0] if args else "?"
    return (name.decode() if isinstance(name, bytes) else str(name)).upper().split()[0]


def read_series(directory: Path) -> dict[str, list[dict[str, Any]]]:
    """Each process's snapshots, oldest first, by file name."""
    series = {}
    for path in sorted(directory.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        series[path.stem] = lines
    return series


def counts_between(
    series: dict[str, list[dict[str, Any]]], start: float, end: float
) -> dict[str, dict[str, int]]:
    """Each role's counts between ``start`` and ``end``: for each process, its last snapshot
    at or after ``end`` (or its last) less its last before ``start`` (or nothing)."""
    totals: dict[str, Counter[str]] = {}
    for name, snapshots in series.items():
        role = name.rsplit("-", 1)[0]
        before = [s for s in snapshots if s["t"] <= start]
        after = [s for s in snapshots if s["t"] >= end] or snapshots[-1:]
        if not after:
            continue
        first = before[-1] if before else {}
        last = after[0]
        delta = Counter(
            {
                key: value - first.get(key, 0)
                for key, value in last.items()
                if key != "t" and value != first.get(key, 0)
            }
        )
        totals.setdefault(role, Counter()).update(delta)
    return {role: dict(counts) for role, counts in totals.items()}


def round_trips(counts: dict[str, int]) -> int:
    return (
        counts.get("statements", 0)
        + 2 * counts.get("transactions", 0)
        + CONNECT_ROUND_TRIPS * counts.get("connections", 0)
    )


def redis_commands(counts: dict[str, int]) -> int:
    return sum(value for key, value in counts.items() if key.startswith("redis:"))
