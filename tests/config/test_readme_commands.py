"""The README's commands, run as written, in a fresh clone-like checkout.

The checkout is a copy of the repository's files (tracked, and new ones not ignored) in a
temporary folder: no ``var/``, no database, nothing left by an earlier run. Its ``.venv`` is
this checkout's, linked, and never rebuilt: ``make`` is told the venv's stamp is up to date
(``-o .venv/.installed``), since a fresh clone's first ``make`` would spend minutes on pip (and
pip here would repoint this venv at the copy). ``PYTHONPATH`` names the copy, as a fresh
clone's own editable install would, so every process (``celery -A config`` too) runs the
copy's code and keeps its state in the copy's ``var/``. Every other setting is the README's:
the environment is this process's less what the suite sets for itself (``DATABASE_URL``,
``BAIZE_VAR_DIR``, ``SECRET_KEY``, ``BAIZE_CACHE``, the outer ``make``'s), so the commands
meet the embedded SQLite default with ``DEBUG=1``, as ``make`` runs them; the sandbox's uids
stay the run's own.

The commands without a broker run in the suite's first pass; SQLite beside a real worker and
the beat (README, "What plays the matches") needs Redis and runs in the services pass, on the
Redis database of this test run (``config/pytest_plugin.py``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from config.celery import app
from tests.processes import process_table

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: What the suite (and the ``make test`` around it) sets for itself, which a reader of the
#: README has not set.
SUITE_SETTINGS = (
    *("DATABASE_URL", "BAIZE_VAR_DIR", "SECRET_KEY", "BAIZE_CACHE", "DEBUG"),
    *("MAKEFLAGS", "MFLAGS", "MAKELEVEL"),
)
#: ``make`` never rebuilds the linked venv.
MAKE = ("make", "-o", ".venv/.installed")
#: Seconds a command or a wait may take before the test fails.
COMMAND_SECONDS = 180
PASSWORD = "a long enough passphrase"
#: Matches the worker finishes while authors' requests write beside it.
MATCHES = 3


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("clone")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet committed is listed, not there
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    (folder / ".venv").symlink_to(ROOT / ".venv")
    return folder


def readme_environment(checkout: Path, **settings: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k not in SUITE_SETTINGS}
    return {**environment, "PYTHONPATH": str(checkout), **settings}


def run(checkout: Path, command: str, **settings: str) -> str:
    """A README command line (``DEBUG=1 .venv/bin/python manage.py ...``, ``make ...``)."""
    words = command.split()
    environment = readme_environment(checkout, **settings)
    while "=" in words[0]:  # a leading NAME=VALUE, as the shell reads it
        name, _, value = words.pop(0).partition("=")
        environment[name] = value
    if words[0] == "make":
        words[:1] = MAKE
    done = subprocess.run(
        words,
        cwd=checkout,
        env=environment,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_quick_start_and_the_commands_run_as_written(checkout):
    """``make demo``; then, as ``make`` runs them, ``migrate``, ``builtin_bots``, ``play`` of
    the Snag example against the random bot (README, bot-author guide) and ``play --sets``."""
    demo = run(checkout, "make demo")
    assert "standings API:" in demo and (checkout / "var" / "baize.sqlite3").is_file()

    run(checkout, "DEBUG=1 .venv/bin/python manage.py migrate")
    run(checkout, "DEBUG=1 .venv/bin/python manage.py builtin_bots")
    played = run(
        checkout, "DEBUG=1 .venv/bin/python manage.py play snag examples/snag/bot.py random"
    )
    assert played.splitlines()[0] == (
        "seat 0: script:examples/snag/bot.py (unsandboxed: your own process, wall-clock time)"
    )
    assert "winner: seat" in played and ", played," in played
    sets = run(
        checkout,
        "DEBUG=1 .venv/bin/python manage.py play snag examples/snag/bot.py random --sets 2",
    )
    assert sets.splitlines()[-1].startswith("sets won-drawn-lost: ")
    replayed = run(checkout, "DEBUG=1 .venv/bin/python manage.py replay_matches")
    assert replayed.rstrip().endswith(": 0 failed") and int(replayed.split()[0]) > 0, replayed


# SQLite beside a worker ---------------------------------------------------------------------


def redis_broker_url() -> str:
    url = os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith(("redis://", "rediss://")):
        pytest.skip("needs CELERY_BROKER_URL on Redis (the services pass)")
    return url


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Service:
    """A README command left running (``make serve``, ``make worker``) in a session of its
    own, its output in a file; stopped with its whole process group."""

    def __init__(self, checkout: Path, target: str, environment: dict[str, str]) -> None:
        self.log = checkout / f"{target}.log"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [*MAKE, *target.split()],
                cwd=checkout,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        """SIGTERM to the whole group, and wait until every process in it is gone (``make``
        goes first; a Celery worker still puts back the messages it held), else SIGKILL."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            deadline = time.monotonic() + 30
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            while group_alive(self.process.pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if not group_alive(self.process.pid):
                break
        self.process.wait()


def group_alive(group: int) -> bool:
    """Whether a process of ``group`` still runs. Its zombies are reaped where they are
    ours: a test process that ran bots is a child subreaper, so the group's orphans come to
    it, and a zombie left there kept the group "alive" for the whole SIGTERM and SIGKILL
    waits (two minutes a run)."""
    alive = False
    for entry in process_table():
        if entry.group != group:
            continue
        if entry.state != "Z":
            alive = True
        elif entry.parent == os.getpid():
            with contextlib.suppress(ChildProcessError):
                os.waitpid(entry.pid, os.WNOHANG)
    return alive


class Client:
    """Requests to the served pages and API, each status kept."""

    def __init__(self, port: int) -> None:
        self.root = f"http://127.0.0.1:{port}"
        self.statuses: list[tuple[str, str, int]] = []

    def send(self, method: str, path: str, body: dict | None = None, token: str = "") -> tuple:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.root + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, content = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, content = error.code, error.read()
        self.statuses.append((method, path, status))
        is_json = content[:1] in (b"{", b"[")
        return status, json.loads(content) if is_json else content.decode(errors="replace")

    def answers(self) -> bool:
        try:
            return self.send("GET", "/api/games/")[0] == 200
        except OSError:
            return False


def wait_for(condition, what: str, services: list[Service]) -> None:
    deadline = time.monotonic() + COMMAND_SECONDS
    while not condition():
        for service in services:
            assert service.process.poll() is None, f"{service.log.name} ended:\n{service.output()}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def finished_matches(client: Client) -> int:
    status, page = client.send("GET", "/api/matches/?limit=100")
    if status != 200:
        return 0
    return sum(match["status"] == "finished" for match in page["results"])


def author_requests(client: Client, number: int) -> None:
    """What an author does first (bot-author guide): sign up, a token, a bot, a change, and a
    request refused; every one a write to the database the worker writes to."""
    name = f"reader-{number}-{uuid.uuid4().hex[:8]}"
    status, body = client.send("POST", "/api/accounts/", {"username": name, "password": PASSWORD})
    if status != 201:
        return
    token = body["token"]
    client.send("POST", "/api/accounts/token/", {"username": name, "password": PASSWORD})
    status, bot = client.send("POST", "/api/bots/", {"game": "snag", "name": name}, token)
    if status == 201:
        client.send("PATCH", f"/api/bots/{bot['id']}/", {"on_ladder": False}, token)
    client.send("POST", "/api/bots/", {"game": "snag", "name": name, "colour": "red"}, token)
    client.send("GET", "/ladder/snag/")
    client.send("GET", "/api/ladder/snag/sets/")


@pytest.mark.services
def test_sqlite_serves_requests_while_a_worker_plays_and_never_answers_500(checkout):
    """README, "What plays the matches": ``make serve &`` and ``make worker`` beside Redis, on
    the embedded SQLite. The beat's ladder ticks (every second here) set the worker playing
    the built-in bots' sets while authors' requests write to the same file: each request is
    answered, at worst with 503 busy, never 500, and every match played replays."""
    broker = redis_broker_url()
    port = free_port()
    # The run's Redis database outlives the copy, whose fresh SQLite gives its ids out again
    # on every run: a cache there would hand this run another run's pages. The database cache
    # (BAIZE_CACHE=db) starts empty with the file, as a fresh clone's does.
    settings = {
        "CELERY_BROKER_URL": broker,
        "BAIZE_CACHE": "db",
        "BAIZE_TICK_SECONDS": "1",
        "BAIZE_SIGN_UP_RATE": "1000/hour",
        "BAIZE_TOKEN_RATE": "1000/hour",
    }
    environment = readme_environment(checkout, **settings)
    client = Client(port)
    # Whatever an earlier test left queued on this broker database: the worker would play
    # it first, against this copy's own matches of the same ids.
    app.control.purge()
    services = [Service(checkout, f"serve PORT={port}", environment)]
    try:
        wait_for(client.answers, "make serve to answer", services)
        services.append(Service(checkout, "worker", environment))
        wait_for(lambda: finished_matches(client) >= 1, "the worker's first match", services)
        rounds = 0
        # Two matches finished while the requests go on: both write to the file at once.
        while finished_matches(client) < MATCHES or rounds < 6:
            author_requests(client, rounds)
            rounds += 1
            assert rounds < 60, f"the worker finished {finished_matches(client)} matches"
    finally:
        for service in reversed(services):
            service.stop()
        app.control.purge()  # what the stopped worker left queued, as after the suite's workers

    errors = [status for status in client.statuses if status[2] >= 500 and status[2] != 503]
    assert not errors, f"{errors}\n{services[0].output()[-5000:]}"
    assert "Internal Server Error" not in services[0].output()
    assert sum(status == 201 for _, _, status in client.statuses) >= 4
    replayed = run(checkout, "DEBUG=1 .venv/bin/python manage.py replay_matches")
    assert replayed.rstrip().endswith(": 0 failed"), replayed
    assert int(replayed.split()[0]) >= MATCHES, replayed
