"""The capacity run's figures: one row per number of concurrent matches, and the curve."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import counters


@dataclass(frozen=True)
class RunFigures:
    """One run: ``workers`` processes playing ``matches`` matches, and what it cost."""

    workers: int
    matches: int
    seconds: float
    #: Statements, round trips, transactions and connections of the workers' processes.
    statements: int
    round_trips: int
    transactions: int
    #: Rows inserted, updated and deleted in this database (PostgreSQL's own count).
    rows_written: int
    #: WAL of this database's relations and their commits; of the whole server.
    wal_bytes: int | None
    wal_bytes_server: int
    #: Redis commands sent by the workers' main process (taking tasks), by their pool
    #: processes (the tasks: the cache, tasks they send), and by the run's dispatch.
    redis_consumer: int
    redis_pool: int
    redis_dispatch: int
    redis_round_trips: int
    #: Every Redis client's commands meanwhile, as the server counts them.
    redis_server: int
    #: How much the event log's table grew on disk, per match of the run.
    log_bytes_per_match: float
    load_before: float
    #: CPU seconds of the workers (their processes and bots), of this database's backends,
    #: of the Redis server (everyone's), and of the machine busy, and in all.
    cpu_workers: float
    cpu_postgres: float
    cpu_redis: float
    machine_busy: float
    #: The time Redis spent running the run's own commands (``server.redis_command_seconds``).
    redis_command_seconds: float = 0.0
    #: How much the database grew (``pg_database_size``: tables, indexes, their free space).
    database_growth: int = 0

    @property
    def rate(self) -> float:
        return self.matches / self.seconds

    def per_match(self, value: float | None) -> float | None:
        return None if value is None else value / self.matches

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rate": self.rate}


def figures_of(
    *,
    workers: int,
    matches: int,
    seconds: float,
    counts: dict[str, dict[str, int]],
    database: dict[str, int],
    wal: dict[str, int] | None,
    wal_server: int,
    redis_server: int,
    log_bytes_per_match: float,
    load_before: float,
    cpu: dict[str, float],
    database_growth: int = 0,
) -> RunFigures:
    worker_counts: dict[str, int] = {}
    for role in ("pool", "consumer"):
        for key, value in counts.get(role, {}).items():
            worker_counts[key] = worker_counts.get(key, 0) + value
    dispatch = counts.get("dispatch", {})
    return RunFigures(
        workers=workers,
        matches=matches,
        seconds=seconds,
        statements=worker_counts.get("statements", 0),
        round_trips=counters.round_trips(worker_counts),
        transactions=worker_counts.get("transactions", 0),
        rows_written=sum(
            database.get(key, 0) for key in ("tup_inserted", "tup_updated", "tup_deleted")
        ),
        wal_bytes=None if wal is None else wal["bytes"],
        wal_bytes_server=wal_server,
        redis_consumer=counters.redis_commands(counts.get("consumer", {})),
        redis_pool=counters.redis_commands(counts.get("pool", {})),
        redis_dispatch=counters.redis_commands(dispatch),
        redis_round_trips=worker_counts.get("redis_round_trips", 0)
        + dispatch.get("redis_round_trips", 0),
        redis_server=redis_server,
        log_bytes_per_match=log_bytes_per_match,
        load_before=load_before,
        cpu_workers=cpu["workers"],
        cpu_postgres=cpu["postgres"],
        cpu_redis=cpu["redis"],
        machine_busy=cpu["machine_busy"] / cpu["machine"] if cpu["machine"] else 0.0,
        redis_command_seconds=cpu.get("redis_commands", 0.0),
        database_growth=database_growth,
    )


#: The rate of each run, and the machine around it.
RATE_COLUMNS = (
    ("concurrent matches", "{workers}"),
    ("matches", "{matches}"),
    ("seconds", "{seconds:.1f}"),
    ("matches/s", "{rate:.3f}"),
    ("efficiency", "{efficiency:.2f}"),
    ("machine busy", "{machine_busy:.0%}"),
    ("load before", "{load_before:.1f}"),
)
#: What each match of the run cost the shared parts, and the workers.
COST_COLUMNS = (
    ("concurrent matches", "{workers}"),
    ("PG statements", "{statements:.1f}"),
    ("PG round trips", "{round_trips:.1f}"),
    ("PG transactions", "{transactions:.1f}"),
    ("rows written", "{rows_written:.1f}"),
    ("database growth, B", "{database_growth:,.0f}"),
    ("event log, B", "{log_bytes:,.0f}"),
    ("WAL, B", "{wal_bytes}"),
    ("WAL of the server, B", "{wal_bytes_server:,.0f}"),
    ("PG backend CPU, ms", "{cpu_postgres:.1f}"),
    ("Redis: broker", "{redis_consumer:.1f}"),
    ("Redis: tasks", "{redis_pool:.1f}"),
    ("Redis: dispatch", "{redis_dispatch:.1f}"),
    ("Redis, server", "{redis_server:.1f}"),
    ("Redis µs, ours", "{redis_command_us:.0f}"),
    ("worker CPU, ms", "{cpu_workers:.0f}"),
)


def _values(run: RunFigures, one: float) -> dict[str, Any]:
    return {
        "workers": run.workers,
        "matches": run.matches,
        "seconds": run.seconds,
        "rate": run.rate,
        "efficiency": run.rate / (run.workers * one),
        "statements": run.statements / run.matches,
        "round_trips": run.round_trips / run.matches,
        "transactions": run.transactions / run.matches,
        "rows_written": run.rows_written / run.matches,
        "database_growth": run.database_growth / run.matches,
        "log_bytes": run.log_bytes_per_match,
        "wal_bytes": "—" if run.wal_bytes is None else f"{run.wal_bytes / run.matches:,.0f}",
        "wal_bytes_server": run.wal_bytes_server / run.matches,
        "redis_consumer": run.redis_consumer / run.matches,
        "redis_pool": run.redis_pool / run.matches,
        "redis_dispatch": run.redis_dispatch / run.matches,
        "redis_server": run.redis_server / run.matches,
        "redis_command_us": 1e6 * run.redis_command_seconds / run.matches,
        "load_before": run.load_before,
        "cpu_workers": 1000 * run.cpu_workers / run.matches,
        "cpu_postgres": 1000 * run.cpu_postgres / run.matches,
        "machine_busy": run.machine_busy,
    }


def table_rows(runs: list[RunFigures], columns: tuple = RATE_COLUMNS) -> list[list[str]]:
    """One row per run: the rate and the efficiency against the first run's rate per worker
    process (the run of one), or each cost per match."""
    one = runs[0].rate / runs[0].workers
    return [[template.format(**_values(run, one)) for _, template in columns] for run in runs]


def markdown_table(runs: list[RunFigures]) -> str:
    tables = []
    for columns in (RATE_COLUMNS, COST_COLUMNS):
        header = [name for name, _ in columns]
        lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in table_rows(runs, columns)]
        tables.append("\n".join(lines))
    return "\n\n".join(tables)


def draw_curve(runs: list[RunFigures], path: Path) -> bool:
    """The curve as a PNG at ``path``: matches per second against concurrent matches, beside
    N times the rate of one, and the efficiency; False if matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    workers = [run.workers for run in runs]
    one = runs[0].rate / runs[0].workers
    figure, (rates, efficiency) = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    rates.plot(workers, [run.rate for run in runs], "o-", label="measured")
    rates.plot(workers, [n * one for n in workers], "--", color="grey", label="N × rate of one")
    rates.set_xscale("log", base=2)
    rates.set_yscale("log", base=2)
    rates.set_xlabel("concurrent matches (worker processes)")
    rates.set_ylabel("matches per second")
    rates.legend()
    efficiency.plot(workers, [run.rate / (run.workers * one) for run in runs], "o-")
    efficiency.axhline(0.9, color="grey", linestyle="--", label="0.9")
    efficiency.set_xscale("log", base=2)
    efficiency.set_ylim(0, 1.1)
    efficiency.set_xlabel("concurrent matches (worker processes)")
    efficiency.set_ylabel("efficiency: rate / (N × rate of one)")
    efficiency.legend()
    for axes in (rates, efficiency):
        axes.set_xticks(workers, [str(n) for n in workers])
        axes.grid(True, alpha=0.3)
    figure.suptitle("Baize capacity: sandboxed Snag matches, one PostgreSQL, one Redis")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return True
