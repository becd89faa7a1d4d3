"""``/healthz`` answers while the process does; ``/readyz`` names what it cannot reach."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_healthz_answers_without_asking_anything_else_and_before_the_host_is_checked(settings):
    settings.ALLOWED_HOSTS = ["baize.example.org"]
    answer = Client().get("/healthz", HTTP_HOST="127.0.0.1:8000")
    assert answer.status_code == 200 and answer.json() == {"status": "alive"}


def test_readyz_is_ready_when_every_part_answers():
    answer = Client().get("/readyz")
    assert answer.status_code == 200
    assert answer.json()["checks"] == {
        "database": "ok",
        "migrations": "ok",
        "cache": "ok",
        "broker": "ok",
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _redis(port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise AssertionError("redis-server did not start")


@pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server")
def test_readyz_goes_503_naming_redis_while_it_is_down_and_200_once_it_is_back(settings):
    port = _free_port()
    url = f"redis://127.0.0.1:{port}/0"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = url
    caches = settings.CACHES
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    }
    server = _redis(port)
    try:
        assert Client().get("/readyz").status_code == 200
        server.terminate()
        server.wait(timeout=10)
        down = Client().get("/readyz")
        assert down.status_code == 503
        body = down.json()
        assert body["status"] == "unavailable" and body["failing"] == ["cache", "broker"]
        assert body["checks"]["database"] == "ok"
        assert "unreachable" in body["checks"]["broker"]
        server = _redis(port)
        assert Client().get("/readyz").status_code == 200
    finally:
        settings.CACHES = caches  # the suite empties its cache after the test
        server.kill()
        server.wait()
