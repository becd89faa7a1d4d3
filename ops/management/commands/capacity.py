"""``manage.py capacity`` (``make capacity``): matches per second against worker processes.

It creates a PostgreSQL database of its own on the server at ``CAPACITY_POSTGRES_URL``
(``baize_capacity_<pid>``) and uses the Redis database at ``CAPACITY_REDIS_URL`` (number 15
by default; it refuses one that holds keys), then runs itself again inside them (``--inner``):
migrates, uploads the workload's two sleeping bots and has a worker check them, and for each
number of worker processes N starts one Celery worker of N processes (``ops.capacity.worker``),
sends N tasks of ``--sets-per-worker`` duplicate sets each (``ops.capacity.workload``),
waits for the round robin to finish, stops the worker and reads what it cost. It prints the
table, and writes it (Markdown and JSON) with the curve (PNG) to ``--out``. Afterwards it
drops the database, empties its Redis database and removes its files, also when it fails.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from rich.console import Console
from rich.table import Table

from ops.capacity import counters, report, server, workload

DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379/15"
DEFAULT_WORKERS = "1,2,4,8,16,32"
#: The run's own sandbox uids (``BAIZE_SANDBOX_UID_BASE``), apart from the suite's and
#: the compose workers'.
UID_BASE = 2_600_000
#: A run that has not finished by then has failed (seconds).
RUN_TIMEOUT = 240
WORKER_START_TIMEOUT = 90


class Command(BaseCommand):
    help = "Measure matches per second against concurrent matches on one PostgreSQL and Redis."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--workers", default=DEFAULT_WORKERS, help="worker processes of each run, in order"
        )
        parser.add_argument(
            "--think", type=float, default=0.2, help="seconds a bot sleeps at each decision"
        )
        parser.add_argument(
            "--target", type=int, default=workload.TARGET, help="the Snag matches' target"
        )
        parser.add_argument(
            "--sets-per-worker", type=int, default=1, help="duplicate sets each worker plays"
        )
        parser.add_argument(
            "--out", default=str(Path(settings.BASE_DIR) / "artifacts" / "capacity")
        )
        parser.add_argument("--inner", action="store_true", help="(the run inside its services)")

    def handle(self, *args: Any, **options: Any) -> None:
        workers = [int(n) for n in options["workers"].split(",")]
        if not workers or min(workers) < 1:
            raise CommandError(f"--workers: positive numbers, got {options['workers']!r}")
        if options["inner"]:
            _Run(self, workers, options).run()
        else:
            _outer(self, options)


def _outer(command: Command, options: dict[str, Any]) -> None:
    """Create the run's database and files, run it inside them, and remove them."""
    import psycopg
    import redis

    postgres = os.environ.get("CAPACITY_POSTGRES_URL") or os.environ.get(
        "BENCH_POSTGRES_URL", DEFAULT_POSTGRES
    )
    redis_url = os.environ.get("CAPACITY_REDIS_URL", DEFAULT_REDIS)
    broker = redis.Redis.from_url(redis_url)
    try:
        if broker.dbsize():
            raise CommandError(
                f"the Redis database {redis_url} holds keys: name an empty one of its own"
                " in CAPACITY_REDIS_URL"
            )
    except redis.RedisError as error:
        raise CommandError(f"no Redis at {redis_url}: {error}") from None
    name = f"baize_capacity_{os.getpid()}"
    try:
        admin = psycopg.connect(postgres, autocommit=True)
    except psycopg.Error as error:
        raise CommandError(f"no PostgreSQL at {postgres}: {error}") from None
    scratch = Path(tempfile.mkdtemp(prefix="baize-capacity-"))
    try:
        admin.execute(f'CREATE DATABASE "{name}"')
        parts = urlsplit(postgres)
        env = {
            **os.environ,
            "DATABASE_URL": urlunsplit(parts._replace(path=f"/{name}")),
            "CELERY_BROKER_URL": redis_url,
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DEBUG": "0",
            "BAIZE_VAR_DIR": str(scratch / "var"),
            "BAIZE_SANDBOX_UID_BASE": str(UID_BASE),
            "BAIZE_SANDBOX_SLOTS": str(2 * max(int(n) for n in options["workers"].split(",")) + 8),
            "BAIZE_SERIES_MAX_MATCHES": str(options["sets_per_worker"]),
            # The checks of the workload's bots play one set each, not a ladder pairing's.
            "BAIZE_LADDER_SETS_PER_PAIRING": "1",
            "BAIZE_CAPACITY_COUNTS": str(scratch / "counts"),
        }
        # Every worker process would compile the project afresh (see the Makefile).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        argv = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "capacity", "--inner"]
        for option in ("workers", "think", "target", "sets_per_worker", "out"):
            argv += [f"--{option.replace('_', '-')}", str(options[option])]
        done = subprocess.run(argv, env=env)
        if done.returncode != 0:
            raise CommandError(f"the capacity run failed (exit status {done.returncode})")
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
        broker.flushdb()
        shutil.rmtree(scratch, ignore_errors=True)


class _Run:
    """The run inside its own database and Redis database."""

    def __init__(self, command: Command, workers: list[int], options: dict[str, Any]) -> None:
        self.command = command
        self.console = Console(width=160)
        self.workers = workers
        self.think = options["think"]
        self.target = options["target"]
        self.sets_per_worker = options["sets_per_worker"]
        self.out = Path(options["out"])
        self.counts = Path(os.environ["BAIZE_CAPACITY_COUNTS"])
        #: This database's backends and their CPU seconds, as last seen.
        self.backends: dict[int, float] = {}
        #: Each run's matches: who played each, when.
        self.timelines: dict[int, list[dict[str, Any]]] = {}
        self.counts.mkdir(parents=True, exist_ok=True)

    def run(self) -> None:
        import redis

        started = time.monotonic()
        self.console.log("migrating the run's database")
        call_command("migrate", verbosity=0, interactive=False)
        self.walinspect = server.wal_inspect_install()
        self.redis = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        counters.install(self.counts, "driver")
        versions = self._checked_versions()
        decisions = workload.workload_decisions(target=self.target)
        self.console.log(
            f"workload: Snag to {self.target}, {decisions} decisions a match,"
            f" {self.think * 1000:.0f} ms asleep at each,"
            f" {2 * self.sets_per_worker} matches per worker process"
        )
        runs = [self._measure(n, versions) for n in self.workers]
        self._report(runs, decisions, time.monotonic() - started)

    def _checked_versions(self) -> list:
        self.console.log("uploading the workload's bots; a worker checks them")
        versions = workload.workload_versions(think=self.think)
        with self._worker(2):
            deadline = time.monotonic() + RUN_TIMEOUT
            while time.monotonic() < deadline:
                statuses = workload.versions_checked(versions)
                if set(statuses.values()) == {"ready"}:
                    for version in versions:
                        version.refresh_from_db()
                    return versions
                if "rejected" in statuses.values():
                    raise CommandError(f"the workload's bot was rejected: {statuses}")
                time.sleep(0.5)
        raise CommandError("the workload's bots were not checked in time")

    def _measure(self, n: int, versions: list) -> report.RunFigures:
        sets = n * self.sets_per_worker
        tournament = workload.workload_tournament(
            versions=versions,
            sets=sets,
            target=self.target,
            name=f"capacity-{n}-{secrets.token_hex(2)}",
        )
        warm_up = workload.workload_tournament(
            versions=versions, sets=n, target=1, name=f"warm-up-{n}-{secrets.token_hex(2)}"
        )
        with self._worker(n) as worker:
            # Untimed, a set of one deal for each process: its first task pays for what a
            # process does once in its life (imports, its connection, its first launches),
            # which a worker that has run for a while has paid long ago.
            workload.workload_send(tournament=warm_up)
            self._wait_finished(warm_up.pk, worker)
            self.backends.clear()
            log_before = self._log_bytes()
            # This process's own writes are counted before the run starts: its backend
            # hands its counts to the server as it ends.
            connection.close()
            time.sleep(1.0)
            load = os.getloadavg()[0]
            before = server.postgres_snapshot()
            redis_before = server.redis_commandstats(self.redis)
            cpu_before = self._cpu(worker)
            start, dispatch_before = time.time(), counters.snapshot()
            workload.workload_send(tournament=tournament)
            dispatch = _delta(counters.snapshot(), dispatch_before)
            finished_at = self._wait_finished(tournament.pk, worker)
            cpu = {
                key: value - cpu_before.get(key, 0.0) for key, value in self._cpu(worker).items()
            }
            # The workers' last counts are written within ``counters.PERIOD``.
            time.sleep(2 * counters.PERIOD)
        end = finished_at.timestamp()
        connection.close()
        time.sleep(1.0)
        after = server.postgres_snapshot()
        redis_after = server.redis_commandstats(self.redis)
        wal = server.wal_of_this_database(before["lsn"], after["lsn"]) if self.walinspect else None
        counts = counters.counts_between(counters.read_series(self.counts), start, end)
        counts["dispatch"] = dispatch
        counts.pop("driver", None)
        database = {
            key: after[key] - before[key] for key in ("tup_inserted", "tup_updated", "tup_deleted")
        }
        redis_server = sum(calls for calls, _ in redis_after.values()) - sum(
            calls for calls, _ in redis_before.values()
        )
        ours: dict[str, int] = {}
        for role in ("pool", "consumer", "dispatch"):
            for key, value in counts.get(role, {}).items():
                if key.startswith("redis:"):
                    ours[key] = ours.get(key, 0) + value
        cpu["redis_commands"] = server.redis_command_seconds(ours, redis_before, redis_after)
        matches = 2 * sets
        figures = report.figures_of(
            workers=n,
            matches=matches,
            seconds=end - start,
            counts=counts,
            database=database,
            wal=wal,
            wal_server=server.wal_distance(before["lsn"], after["lsn"]),
            redis_server=redis_server,
            log_bytes_per_match=(self._log_bytes() - log_before) / matches,
            load_before=load,
            cpu=cpu,
            database_growth=after["database_bytes"] - before["database_bytes"],
        )
        self.timelines[n] = self._timeline(tournament.pk, start)
        self.console.log(
            f"{n} worker processes: {matches} matches in {figures.seconds:.1f} s,"
            f" {figures.rate:.3f} matches/s (load {load:.1f} before)"
        )
        return figures

    def _wait_finished(self, tournament_id: int, worker: subprocess.Popen) -> Any:
        from tournaments.models import Tournament

        deadline = time.monotonic() + RUN_TIMEOUT
        while time.monotonic() < deadline:
            self._sample_backends()
            if worker.poll() is not None:
                raise CommandError(f"the worker stopped (exit status {worker.returncode})")
            status, finished_at = Tournament.objects.values_list("status", "finished_at").get(
                pk=tournament_id
            )
            if status == Tournament.Status.FINISHED:
                return finished_at
            time.sleep(0.25)
        raise CommandError(f"tournament {tournament_id} did not finish in {RUN_TIMEOUT} s")

    def _timeline(self, tournament_id: int, start: float) -> list[dict[str, Any]]:
        """Each match of the run: who played it, when it was claimed and finished (seconds
        from the dispatch), and how long it played."""
        from matches.models import Match

        rows = Match.objects.filter(tournament_match__tournament_id=tournament_id).values_list(
            "id", "claimed_by", "started_at", "finished_at"
        )
        return [
            {
                "match": match_id,
                "worker": worker,
                "claimed": round(started.timestamp() - start, 3),
                "finished": round(finished.timestamp() - start, 3),
            }
            for match_id, worker, started, finished in rows
            if started is not None and finished is not None
        ]

    def _sample_backends(self) -> None:
        """Each backend's CPU time as last seen: a worker's connection ends with its task."""
        for pid in server.backend_pids():
            self.backends[pid] = server.process_cpu_seconds(pid, children=False)

    def _cpu(self, worker: subprocess.Popen) -> dict[str, float]:
        """CPU seconds so far: the worker's processes and their bots, this database's
        backends (the workers' connections, as last seen), the Redis server, the machine."""
        self._sample_backends()
        busy, total = server.machine_busy_seconds()
        return {
            "workers": server.tree_cpu_seconds(worker.pid),
            "postgres": sum(self.backends.values()),
            "redis": server.redis_cpu_seconds(self.redis),
            "machine_busy": busy,
            "machine": total,
        }

    def _log_bytes(self) -> int:
        from matches.models import MatchEventBatch

        return server.relation_bytes(MatchEventBatch._meta.db_table)

    def _worker(self, processes: int) -> _Worker:
        return _Worker(processes, self.counts, self.console)

    def _report(self, runs: list[report.RunFigures], decisions: int, seconds: float) -> None:
        titles = ("Baize capacity: matches per second", "What each match cost")
        for title, columns in zip(titles, (report.RATE_COLUMNS, report.COST_COLUMNS), strict=True):
            table = Table(title=f"{title} ({decisions} decisions a match)")
            for name, _ in columns:
                table.add_column(name, justify="right")
            for row in report.table_rows(runs, columns):
                table.add_row(*row)
            self.console.print(table)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "capacity.md").write_text(report.markdown_table(runs) + "\n")
        (self.out / "capacity.json").write_text(
            json.dumps(
                {
                    "think_seconds": self.think,
                    "sets_per_worker": self.sets_per_worker,
                    "decisions_per_match": decisions,
                    "runs": [run.as_dict() for run in runs],
                    "timelines": self.timelines,
                },
                indent=2,
            )
        )
        drawn = report.draw_curve(runs, self.out / "capacity.png")
        self.console.log(
            f"table and figures in {self.out}/"
            + ("" if drawn else " (no curve: matplotlib is not installed, see make capacity)")
            + f"; the whole run took {seconds / 60:.1f} min"
        )


class _Worker:
    """A Celery worker of ``processes`` processes, counted, for the length of a ``with``."""

    def __init__(self, processes: int, counts: Path, console: Console) -> None:
        self.processes, self.counts, self.console = processes, counts, console

    def __enter__(self) -> subprocess.Popen:
        for ready in self.counts.glob("ready-*"):
            ready.unlink()
        celery = Path(sys.executable).with_name("celery")
        argv = [str(celery), "-A", "ops.capacity.worker", "worker", "-l", "warning"]
        argv += ["--concurrency", str(self.processes), "--hostname", f"capacity{self.processes}@%h"]
        self.log = self.counts / f"worker-{self.processes}.log"
        self.process = subprocess.Popen(
            argv, stdout=self.log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + WORKER_START_TIMEOUT
        while not list(self.counts.glob("ready-*")):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self._stop()
                raise CommandError(f"the worker did not start: see {self.log.read_text()[-2000:]}")
            time.sleep(0.2)
        return self.process

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _stop(self) -> None:
        if self.process.poll() is None:
            # Warm shutdown: the tasks are over; the pool's connections close as it exits.
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def _delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {
        key: value - before.get(key, 0)
        for key, value in after.items()
        if value != before.get(key, 0)
    }
