"""Load on a tournament's standings, as served: gunicorn on this machine, wrk as the client.

Measures the tournament page (``web``) and the standings API (``tournaments``), each
computed once per version of the tournament (``tournaments.standings_cache``) and then
served from the cache, under ``wrk`` with 32 connections for a few seconds, against
gunicorn with persistent database connections on the database the command runs on.
Returns numbers and prints nothing.

The load needs a tournament worth showing: an 8-bot Snag round robin of the built-in
strategies, played once by real bots and kept (it is found by name on later runs).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection

from bots.models import BotVersion
from bots.services.bots import builtin_bot_version
from matches.models import Match
from tournaments.config import TournamentConfig
from tournaments.models import Tournament
from tournaments.services import tournament_start_with
from tournaments.tasks import tournament_match_play

BENCH_NAME = "bench: standings under load"
ENTRANTS = 8
#: gunicorn's shape here: one process per core, two threads each. More threads only fight
#: over each process's interpreter lock (16 threads halved the throughput), more processes
#: over the two cores (4 processes: p99 above 50 ms); measured on this 2-core machine.
WORKERS, THREADS = 2, 2


@dataclass(frozen=True)
class LoadFigures:
    requests_per_second: float
    p99_ms: float
    errors: int


def wrk_available() -> bool:
    return shutil.which("wrk") is not None


def standings_load(*, seconds: float = 5.0, connections: int = 32) -> dict[str, LoadFigures]:
    """The tournament page and the standings API under load, one after the other."""
    tournament = bench_tournament()
    paths = {
        "page": f"/tournaments/{tournament.pk}/",
        "api": f"/api/tournaments/{tournament.pk}/standings/",
    }
    with gunicorn_serving() as base:
        figures = {}
        for name, path in paths.items():
            _get(base + path)  # renders and caches the page once
            wrk_run(base + path, seconds=1, connections=connections)  # warm every worker
            figures[name] = wrk_run(base + path, seconds=seconds, connections=connections)
    return figures


def bench_tournament() -> Tournament:
    """The finished bench round robin, played now if this database has none yet."""
    existing = Tournament.objects.filter(name=BENCH_NAME, status=Tournament.Status.FINISHED)
    if existing.exists():
        return existing.latest("id")
    config = TournamentConfig(name=BENCH_NAME, game="snag", options={"target": 20})
    tournament = tournament_start_with(
        config=config, versions=_bench_versions(), secret="bench", enqueue=False
    )
    while pending := list(
        Match.objects.filter(
            tournament_match__tournament=tournament, status=Match.Status.PENDING
        ).values_list("id", flat=True)
    ):
        for match_id in pending:
            tournament_match_play(match_id)
    tournament.refresh_from_db()
    return tournament


def _bench_versions() -> list[BotVersion]:
    return [
        builtin_bot_version(
            game_id="snag",
            name=f"bench-{number + 1}",
            strategy="random" if number % 2 else "snag_heuristic",
            description="make bench",
        )
        for number in range(ENTRANTS)
    ]


@contextmanager
def gunicorn_serving(
    *,
    workers: int = WORKERS,
    threads: int = THREADS,
    env: dict[str, str] | None = None,
    checkout: Path | None = None,
) -> Iterator[str]:
    """gunicorn serving this project (or the code of another ``checkout`` of it, with this
    interpreter) on a free local port, with ``env`` over this process's; its base URL.
    Stopped after."""
    port = _free_port()
    environment = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": settings.SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_CONN_MAX_AGE": "600",
        "LOG_LEVEL": "ERROR",
        **(env or {}),
    }
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "config.wsgi:application",
        f"--bind=127.0.0.1:{port}",
        f"--workers={workers}",
        "--worker-class=gthread",
        f"--threads={threads}",
        "--log-level=error",
    ]
    server = subprocess.Popen(
        command, env=environment, cwd=checkout or settings.BASE_DIR, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base, server)
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_up(base: str, server: subprocess.Popen, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited with status {server.returncode}")
        try:
            _get(base + "/")
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"gunicorn did not answer within {timeout} s")


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def wrk_run(url: str, *, seconds: float, connections: int, threads: int = 2) -> LoadFigures:
    """One wrk run: requests per second, the 99th percentile latency, failed requests."""
    command = [
        "wrk",
        f"--threads={threads}",
        f"--connections={connections}",
        f"--duration={max(1, round(seconds))}s",
        "--latency",
        url,
    ]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return parse_wrk(output)


_UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def parse_wrk(output: str) -> LoadFigures:
    """The figures of wrk's ``--latency`` report."""
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.M).groups()
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    socket_errors = re.search(r"connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    errors = int(bad.group(1)) if bad else 0
    if socket_errors:
        errors += sum(int(count) for count in socket_errors.groups())
    return LoadFigures(rate, float(value) * _UNITS_MS[unit], errors)


#: The targets of the load rows: twice a plain DRF list over PostgreSQL here (~1,060/s).
TARGET_RPS, TARGET_P99_MS = 2000, 40


def bench_rows(*, runs: int, quick: bool, log) -> list[tuple]:
    """The ``make bench`` rows: medians over up to three wrk runs of each URL."""
    if not wrk_available():
        log("load rows skipped: no wrk on this machine (make load-deps installs it)")
        return []
    log("standings under load: gunicorn and wrk")
    seconds = 3.0 if quick else 5.0
    measured = [standings_load(seconds=seconds) for _ in range(1 if quick else min(runs, 3))]
    rows = []
    for name, label in (("page", "tournament page"), ("api", "standings API")):
        rates = sorted(figures[name].requests_per_second for figures in measured)
        tails = sorted(figures[name].p99_ms for figures in measured)
        errors = sum(figures[name].errors for figures in measured)
        what = f"{label} under load, 32 conn. ({connection.vendor})"
        rows.append((what, rates[len(rates) // 2], "requests/s", TARGET_RPS, False))
        rows.append(
            (
                f"{label} p99 latency, {errors} errors",
                tails[len(tails) // 2],
                "ms",
                TARGET_P99_MS,
                True,
            )
        )
    return rows
