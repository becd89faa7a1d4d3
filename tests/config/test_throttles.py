"""Throttles hold for the whole service: two gunicorn workers count in one shared cache, and a
made-up X-Forwarded-For header gives a client no fresh identity."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: Small: each request is served by a freshly forked worker, which takes most of a second.
LIMIT = 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def two_workers(tmp_path):
    """gunicorn with two worker processes on a fresh database, the cache left to its default."""
    env = {
        **os.environ,
        # Django's own hasher costs most of a second of CPU per sign-up and per refused
        # token request: a fast one, the throttles being the same (fast_password_settings).
        "DJANGO_SETTINGS_MODULE": "tests.config.fast_password_settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BAIZE_VAR_DIR": str(tmp_path),
        "SECRET_KEY": "throttle-test",
        "DEBUG": "0",
        "CELERY_BROKER_URL": "",
        "BAIZE_CACHE": "",
        "BAIZE_SIGN_UP_RATE": f"{LIMIT}/hour",
        "BAIZE_TOKEN_RATE": f"{LIMIT}/hour",
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], env=env, check=True, cwd=ROOT)
    port = free_port()
    log = tmp_path / "access.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "2", "--bind", f"127.0.0.1:{port}"]
        # Each worker process serves one request and is replaced: whatever a process kept
        # to itself is gone by the next request, so only a shared count can hold the limit.
        # The app is loaded once, before the workers are forked (--preload): each new worker
        # starts from that state, which served nothing, without importing Django again.
        + ["--max-requests", "1", "--preload"]
        + ["--access-logfile", str(log), "--access-logformat", "%(p)s %(s)s"]
        + ["config.wsgi:application"],
        env=env,
        cwd=ROOT,
    )
    try:
        _wait_for(port)
        yield f"http://127.0.0.1:{port}", log
    finally:
        server.terminate()
        server.wait(timeout=20)


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("gunicorn did not start")


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Connection": "close", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_each_limit_holds_for_the_whole_service_and_a_forged_header_gains_nothing(two_workers):
    base, log = two_workers
    sign_ups = []
    for n in range(3 * LIMIT):
        # Every other request claims to come from a fresh address through a proxy.
        forged = {"X-Forwarded-For": f"203.0.113.{n}"} if n % 2 else {}
        body = {"username": f"u{n}-{uuid.uuid4().hex[:6]}", "password": "a long passphrase 42"}
        sign_ups.append(post(f"{base}/api/accounts/", body, forged))
    tokens = [
        post(f"{base}/api/accounts/token/", {"username": "nobody", "password": "wrong"}, {})
        for _ in range(3 * LIMIT)
    ]

    assert [status for status, _ in sign_ups].count(201) == LIMIT
    refused = [body for status, body in sign_ups if status == 429]
    assert len(refused) == 2 * LIMIT and all(body["error"] == "throttled" for body in refused)
    assert sum(status != 429 for status, _ in tokens) == LIMIT
    pids = {line.split()[0] for line in log.read_text().splitlines() if line.strip()}
    assert len(pids) >= 2 * LIMIT, "a fresh process answered each request"
