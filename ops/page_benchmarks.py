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
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
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
def gunicorn_serving(**options: object) -> Iterator[str]:
    """gunicorn serving this project (``gunicorn_server``); its base URL."""
    with gunicorn_server(**options) as (base, _):  # type: ignore[arg-type]
        yield base


@contextmanager
def gunicorn_server(
    *,
    workers: int = WORKERS,
    threads: int = THREADS,
    env: dict[str, str] | None = None,
    checkout: Path | None = None,
) -> Iterator[tuple[str, int]]:
    """gunicorn serving this project (or the code of another ``checkout`` of it, with this
    interpreter) on a free local port, with ``env`` over this process's; its base URL and
    its master's pid. Stopped after."""
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
        yield base, server.pid
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


# --- What a page costs the server, run for run ------------------------------------------------
#
# On a machine shared with other work, requests per second move with the neighbours' load
# (by half or double between two runs here); the server's own CPU time per request moves far
# less. So the comparisons below read requests per CPU-second of the gunicorn processes
# (master and workers), from /proc, around each wrk run, and alternate the servers run by
# run. On an idle machine bound by CPU, as the load rows are, it is the rate's ratio.

#: The last commit before the pages had sign-in (the merge of h/web came after it): the
#: tournament page it served is the floor of ours.
BEFORE_SIGN_IN = "716af0a"
#: The target of the metrics' cost: with them on, at least this share of the rate without.
METRICS_TARGET = 0.95
#: A signed-in viewer's page, at least this share of an anonymous viewer's rate: their
#: header is kept by the process, so they cost no read more (``web/live.py``).
SIGNED_IN_TARGET = 0.9


def server_cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of gunicorn's master ``pid`` and its live workers."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    ticks = 0
    for process in [pid, *map(int, children)]:
        fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def settled_cpu_seconds(pid: int, *, poll: float = 0.05, limit: float = 5.0) -> float:
    """``server_cpu_seconds`` once the server has stopped spending CPU (two reads ``poll``
    apart agree, within ``limit``): the requests still in flight when wrk stops are the
    run's own cost, not the next run's on the same server."""
    last = server_cpu_seconds(pid)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        time.sleep(poll)
        now = server_cpu_seconds(pid)
        if now == last:
            break
        last = now
    return last


@dataclass(frozen=True)
class CostFigures:
    requests_per_second: float
    requests_per_cpu_second: float
    errors: int


def cost_run(
    url: str, pid: int, *, seconds: float, connections: int = 32, headers: tuple[str, ...] = ()
) -> CostFigures:
    """One wrk run against the server ``pid``: its rate, and requests per CPU-second of it."""
    before = settled_cpu_seconds(pid)
    output = _wrk_output(url, seconds=seconds, connections=connections, headers=headers)
    spent = settled_cpu_seconds(pid) - before
    figures = parse_wrk(output)
    served = int(re.search(r"(\d+) requests in", output).group(1))
    return CostFigures(figures.requests_per_second, served / max(spent, 1e-9), figures.errors)


def _wrk_output(url: str, *, seconds: float, connections: int, headers: tuple[str, ...]) -> str:
    command = ["wrk", "--threads=2", f"--connections={connections}"]
    command += [f"--duration={max(1, round(seconds))}s", "--latency"]
    for header in headers:
        command += ["--header", header]
    return subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout


@dataclass(frozen=True)
class Served:
    """A server to measure: its base URL and master pid, the page's path, request headers."""

    base: str
    pid: int
    path: str
    headers: tuple[str, ...] = ()


def costs_alternating(
    servers: dict[str, Served], *, runs: int, seconds: float
) -> dict[str, list[CostFigures]]:
    """Each server measured ``runs`` times, one after the other in turn."""
    for server in servers.values():
        _get(server.base + server.path)  # renders and keeps the page
        cost_run(server.base + server.path, server.pid, seconds=1, headers=server.headers)
    measured: dict[str, list[CostFigures]] = {name: [] for name in servers}
    for _ in range(runs):
        for name, server in servers.items():
            url = server.base + server.path
            measured[name].append(
                cost_run(url, server.pid, seconds=seconds, headers=server.headers)
            )
    return measured


def paired_ratio(measured: dict[str, list[CostFigures]], name: str, floor: str) -> float:
    """The median, over the runs, of ``name``'s requests per CPU-second over ``floor``'s."""
    ratios = sorted(
        a.requests_per_cpu_second / b.requests_per_cpu_second
        for a, b in zip(measured[name], measured[floor], strict=True)
    )
    return ratios[len(ratios) // 2]


@contextmanager
def checkout_of(revision: str) -> Iterator[Path]:
    """A checkout of ``revision`` of this repository in a temporary folder, removed after."""
    folder = Path(tempfile.mkdtemp(prefix="baize-checkout-"))
    repository = settings.BASE_DIR
    subprocess.run(
        ["git", "-C", str(repository), "worktree", "add", "--detach", str(folder), revision],
        check=True,
        capture_output=True,
    )
    try:
        yield folder
    finally:
        subprocess.run(
            ["git", "-C", str(repository), "worktree", "remove", "--force", str(folder)],
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)


def signed_in_cookie() -> str:
    """A session of a bench author, with the CSRF cookie that signing in set, as a browser
    signed in sends them."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore
    from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH
    from django.utils.crypto import get_random_string

    from bots.services.accounts import user_sign_up

    user = User.objects.filter(username=BENCH_AUTHOR).first()
    if user is None:
        user, _ = user_sign_up(username=BENCH_AUTHOR, password=secrets.token_urlsafe(24))
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    csrf_secret = get_random_string(CSRF_SECRET_LENGTH, allowed_chars=CSRF_ALLOWED_CHARS)
    return (
        f"Cookie: {settings.SESSION_COOKIE_NAME}={session.session_key}; "
        f"{settings.CSRF_COOKIE_NAME}={csrf_secret}"
    )


BENCH_AUTHOR = "bench-author"


def page_costs(*, runs: int, seconds: float, log) -> dict[str, float]:
    """The tournament page's cost, run for run: metrics on against off (the standings API's
    too), signed in against anonymous, and (on SQLite, where the database is a file to copy
    for it) against the code before sign-in. Each ratio is a median of paired runs
    (``paired_ratio``); the rates are requests per CPU-second of the server."""
    tournament = bench_tournament()
    path = f"/tournaments/{tournament.pk}/"
    api = f"/api/tournaments/{tournament.pk}/standings/"
    multiprocess = Path(tempfile.mkdtemp(prefix="baize-metrics-"))
    on = {"BAIZE_METRICS": "1", "PROMETHEUS_MULTIPROC_DIR": str(multiprocess)}
    figures: dict[str, float] = {}
    try:
        with (
            gunicorn_server(env=on) as (on_base, on_pid),
            gunicorn_server(env={"BAIZE_METRICS": "0"}) as (off_base, off_pid),
        ):
            log("the tournament page and the standings API, metrics on and off; signed in")
            cookie = signed_in_cookie()
            measured = costs_alternating(
                {
                    "on": Served(on_base, on_pid, path),
                    "off": Served(off_base, off_pid, path),
                    "signed_in": Served(on_base, on_pid, path, (cookie,)),
                    "api_on": Served(on_base, on_pid, api),
                    "api_off": Served(off_base, off_pid, api),
                },
                runs=runs,
                seconds=seconds,
            )
        figures["metrics_on_over_off"] = paired_ratio(measured, "on", "off")
        figures["api_metrics_on_over_off"] = paired_ratio(measured, "api_on", "api_off")
        figures["api_on_per_cpu_second"] = _median_of(measured["api_on"])
        figures["api_off_per_cpu_second"] = _median_of(measured["api_off"])
        figures["signed_in_over_anonymous"] = paired_ratio(measured, "signed_in", "on")
        figures["on_per_cpu_second"] = _median_of(measured["on"])
        figures["off_per_cpu_second"] = _median_of(measured["off"])
        figures["signed_in_per_cpu_second"] = _median_of(measured["signed_in"])
        figures.update(_before_sign_in(path, runs=runs, seconds=seconds, on=on, log=log))
    finally:
        shutil.rmtree(multiprocess, ignore_errors=True)
    return figures


def _median_of(runs: list[CostFigures]) -> float:
    rates = sorted(run.requests_per_cpu_second for run in runs)
    return rates[len(rates) // 2]


def _before_sign_in(
    path: str, *, runs: int, seconds: float, on: dict[str, str], log
) -> dict[str, float]:
    if connection.vendor != "sqlite":
        log("the code before sign-in is measured on SQLite only (its database is a copy)")
        return {}
    if shutil.which("git") is None:
        log("the code before sign-in is not measured: no git")
        return {}
    database = Path(connection.settings_dict["NAME"])
    with tempfile.TemporaryDirectory(prefix="baize-before-") as scratch:
        # Its own copy of the database: the two share no cache table and no stamp.
        copy = Path(scratch) / "baize.sqlite3"
        shutil.copyfile(database, copy)
        old_env = {"DATABASE_URL": f"sqlite:///{copy}", "BAIZE_VAR_DIR": scratch}
        try:
            with (
                checkout_of(BEFORE_SIGN_IN) as old_code,
                gunicorn_server(env=old_env, checkout=old_code) as (old_base, old_pid),
                gunicorn_server(env=on) as (base, pid),
            ):
                log(f"the tournament page against the code before sign-in ({BEFORE_SIGN_IN})")
                measured = costs_alternating(
                    {"now": Served(base, pid, path), "before": Served(old_base, old_pid, path)},
                    runs=runs,
                    seconds=seconds,
                )
        except (subprocess.CalledProcessError, RuntimeError) as error:
            log(f"the code before sign-in could not be served: {error}")
            return {}
    return {
        "now_over_before_sign_in": paired_ratio(measured, "now", "before"),
        "before_sign_in_per_cpu_second": _median_of(measured["before"]),
        "now_per_cpu_second": _median_of(measured["now"]),
    }


def cost_rows(*, runs: int, quick: bool, log) -> list[tuple]:
    """The load rows of what the tournament page costs the server, each beside its floor
    run for run: ``(what, value, unit, floor, floor is, target as a multiple of it)``."""
    if not wrk_available():
        return []
    costs = page_costs(runs=3 if quick else min(runs, 5), seconds=2 if quick else 3, log=log)
    unit = "requests/CPU-s"
    rows = [
        (
            "tournament page, metrics on (multiprocess), per server CPU-second",
            costs["on_per_cpu_second"],
            unit,
            costs["off_per_cpu_second"],
            "metrics off, run for run",
            METRICS_TARGET,
        ),
        (
            "standings API, metrics on (multiprocess), per server CPU-second",
            costs["api_on_per_cpu_second"],
            unit,
            costs["api_off_per_cpu_second"],
            "metrics off, run for run",
            METRICS_TARGET,
        ),
        (
            "tournament page signed in, per server CPU-second",
            costs["signed_in_per_cpu_second"],
            unit,
            costs["on_per_cpu_second"],
            "anonymous, run for run",
            SIGNED_IN_TARGET,
        ),
    ]
    if "now_per_cpu_second" in costs:
        rows.append(
            (
                "tournament page, per server CPU-second",
                costs["now_per_cpu_second"],
                unit,
                costs["before_sign_in_per_cpu_second"],
                f"before sign-in ({BEFORE_SIGN_IN}), run for run",
                1.0,
            )
        )
    return rows
