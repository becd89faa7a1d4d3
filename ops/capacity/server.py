"""What the servers say they did: PostgreSQL for this run's database, Redis for everyone.

PostgreSQL keeps per-database counts (``pg_stat_database``: transactions, rows inserted,
updated and deleted), flushed by each backend at the latest when it exits: read them once
the run's connections are closed. The WAL is one stream for the whole server, so beside its
position and ``pg_stat_wal`` (everyone's), the WAL records of this database's relations,
and the commit records of the transactions that wrote them, are summed from the WAL itself
(``pg_walinspect``, PostgreSQL 15). Redis counts commands per server only (``INFO
commandstats``): other clients' commands are in it; the counts taken inside the run's own
processes are ``ops.capacity.counters``'.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.db import connection

_DATABASE_FIELDS = (
    "xact_commit",
    "xact_rollback",
    "tup_inserted",
    "tup_updated",
    "tup_deleted",
    "tup_returned",
    "tup_fetched",
)


def postgres_snapshot() -> dict[str, Any]:
    """This database's counts, the WAL's position and everyone's WAL counts, now."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            f"SELECT {', '.join(_DATABASE_FIELDS)} FROM pg_stat_database"
            " WHERE datname = current_database()"
        )
        figures = dict(zip(_DATABASE_FIELDS, cursor.fetchone(), strict=True))
        cursor.execute("SELECT pg_current_wal_lsn()::text, pg_database_size(current_database())")
        figures["lsn"], figures["database_bytes"] = cursor.fetchone()
        cursor.execute("SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal")
        records, fpi, wal_bytes = cursor.fetchone()
        figures.update(wal_records=records, wal_fpi=fpi, wal_bytes=int(wal_bytes))
    return figures


def wal_inspect_install() -> bool:
    """``pg_walinspect`` in this database (a superuser's right); False where it cannot be."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        return True
    except Exception:
        return False


def wal_of_this_database(start_lsn: str, end_lsn: str) -> dict[str, int] | None:
    """The WAL records between the two positions that touch this database's relations,
    with the commit records of the transactions that wrote them: their count and bytes
    (record lengths, full-page images included); None where ``pg_walinspect`` is missing."""
    sql = """
        WITH wal AS (
            SELECT xid, record_length, block_ref
            FROM pg_get_wal_records_info(%s::pg_lsn, %s::pg_lsn)
        ),
        ours AS (
            SELECT DISTINCT xid FROM wal WHERE xid <> '0' AND block_ref LIKE %s
        )
        SELECT count(*), coalesce(sum(record_length), 0) FROM wal
        WHERE block_ref LIKE %s OR xid IN (SELECT xid FROM ours)
    """
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
            (oid,) = cursor.fetchone()
            pattern = f"%/{oid}/%"
            cursor.execute(sql, [start_lsn, end_lsn, pattern, pattern])
            records, length = cursor.fetchone()
    except Exception:
        return None
    return {"records": int(records), "bytes": int(length)}


def wal_distance(start_lsn: str, end_lsn: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_wal_lsn_diff(%s::pg_lsn, %s::pg_lsn)", [end_lsn, start_lsn])
        return int(cursor.fetchone()[0])


def relation_bytes(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size(%s)", [table])
        return int(cursor.fetchone()[0])


def redis_commandstats(client: Any) -> dict[str, tuple[int, int]]:
    """Calls of each command, and the microseconds Redis spent running them, since the
    server started, for all its clients."""
    stats = client.info("commandstats")
    return {
        name.removeprefix("cmdstat_").upper(): (int(values["calls"]), int(values["usec"]))
        for name, values in stats.items()
    }


def redis_command_seconds(
    ours: dict[str, int], before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]
) -> float:
    """The time Redis spent running ``ours`` (calls by command, ``redis:NAME`` keys), at the
    mean cost per call of each command meanwhile; reading and writing the sockets is not in
    it."""
    seconds = 0.0
    for key, calls in ours.items():
        name = key.removeprefix("redis:")
        then, now = before.get(name, (0, 0)), after.get(name, (0, 0))
        if now[0] > then[0]:
            seconds += calls * (now[1] - then[1]) / (now[0] - then[0]) / 1e6
    return seconds


_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int, *, children: bool = True) -> float:
    """A live process's CPU time, with that of its children it has waited for; 0 if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # Fields 14-17 of proc(5), counted from the state (field 3) at index 0.
    utime, stime, cutime, cstime = (int(value) for value in fields[11:15])
    return (utime + stime + (cutime + cstime if children else 0)) / _TICKS


def tree_cpu_seconds(root: int) -> float:
    """The CPU time of ``root`` and its live descendants, each with its waited-for children
    (so every process that ran under ``root`` and has ended is in its parent's figure)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        grew = bool(more)
        tree |= more
    return sum(process_cpu_seconds(pid) for pid in tree)


def backend_pids() -> list[int]:
    """The server processes of this database's other connections (the workers')."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return [pid for (pid,) in cursor.fetchall()]


def redis_cpu_seconds(client: Any) -> float:
    """The Redis server's CPU time since it started (all its clients')."""
    cpu = client.info("cpu")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def machine_busy_seconds() -> tuple[float, float]:
    """CPU seconds the machine spent busy and in all, over all its CPUs, since boot."""
    values = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values) - idle) / _TICKS, sum(values) / _TICKS
