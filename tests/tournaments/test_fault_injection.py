"""Recovery at the default timings: a worker killed, Redis crashed, PostgreSQL stopped.

The test runs its own PostgreSQL and Redis (``faults/services.py``), a beat and two workers
whose bots think 20 ms a decision, so that matches are running and queued when each fault
strikes. Every lease, tick and redispatch setting is left at its default: the tournament
must finish within five minutes of the last service coming back, every match logged once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from .conftest import ROOT, services_configured
from .faults.services import PrivatePostgres, PrivateRedis

# Mostly waiting, at the default lease and redispatch timings.
pytestmark = [pytest.mark.slow(seconds=160), pytest.mark.services]

RECOVERY_SECONDS = 300
SCENARIO = "tests.tournaments.faults.scenario"
WORKER_BOOT = (
    "import tests.tournaments.faults.slow_worker; from celery.__main__ import main; main()"
)


@pytest.fixture
def private_services():
    postgres, redis = PrivatePostgres(), PrivateRedis()
    postgres.start()
    redis.start()
    try:
        yield postgres, redis
    finally:
        redis.kill()
        postgres.remove()


class Deployment:
    """Beat and workers on the private services; every process is stopped by its id."""

    def __init__(self, postgres: PrivatePostgres, redis: PrivateRedis, tmp_path) -> None:
        self.env = {
            **os.environ,
            "DATABASE_URL": postgres.url,
            "CELERY_BROKER_URL": redis.url,
            "BAIZE_TEST_DECISION_SECONDS": "0.02",
            "BAIZE_LADDER_SETS_IN_FLIGHT": "0",  # only the tournament's matches are counted
        }
        timings = ("LEASE", "REDISPATCH")
        for name in (*(f"BAIZE_MATCH_{t}_SECONDS" for t in timings), "BAIZE_TICK_SECONDS"):
            self.env.pop(name, None)  # the defaults are under test
        self.env.pop("BAIZE_CACHE", None)  # the deployment's: Redis beside the broker
        self.tmp_path = tmp_path
        self.processes: list[subprocess.Popen] = []

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, *args], cwd=ROOT, env=self.env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    def spawn(self, *args: str) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=self.env, start_new_session=True
        )
        self.processes.append(process)
        return process

    def worker(self, name: str) -> subprocess.Popen:
        return self.spawn(
            "-c", WORKER_BOOT, "-A", "config", "worker", "--loglevel=ERROR",
            "--concurrency=2", "--hostname", f"{name}-{os.getpid()}@faults",
        )  # fmt: skip

    def beat(self) -> subprocess.Popen:
        pidfile = self.tmp_path / "beat.pid"
        return self.spawn(
            "-m", "celery", "-A", "config", "beat", "--loglevel=ERROR", f"--pidfile={pidfile}"
        )

    def watch(self, tournament_id: int) -> None:
        """Start the one process that reports on the tournament (``scenario watch``)."""
        self.watcher = subprocess.Popen(
            [sys.executable, "-m", SCENARIO, "watch", str(tournament_id)],
            cwd=ROOT, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            start_new_session=True,
        )  # fmt: skip
        self.processes.append(self.watcher)

    def report(self) -> dict:
        self.watcher.stdin.write("\n")
        self.watcher.stdin.flush()
        line = self.watcher.stdout.readline()
        assert line, f"the watcher ended (exit {self.watcher.wait()})"
        return json.loads(line)

    def wait(self, condition: Callable[[dict], bool], seconds: float) -> dict:
        deadline = time.monotonic() + seconds
        while True:
            report = self.report()
            if "error" not in report and condition(report):
                return report
            assert time.monotonic() < deadline, f"gave up after {seconds}s: {report}"
            time.sleep(1)

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def kill_group(process: subprocess.Popen) -> None:
    """The worker and its pool, at once: no goodbye, no ack, no release of its leases."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def test_matches_lost_with_a_worker_redis_and_postgresql_finish_within_five_minutes(
    private_services, tmp_path
):
    if not services_configured():
        pytest.skip("a services test: runs in .ci/run's second pass")
    postgres, redis = private_services
    deployment = Deployment(postgres, redis, tmp_path)
    try:
        deployment.run("manage.py", "migrate", "--no-input", "-v", "0")
        deployment.beat()
        doomed = deployment.worker("doomed")
        deployment.worker("steady")
        deployment.watch(int(deployment.run("-m", SCENARIO, "create")))
        deployment.wait(lambda r: r["running"] >= 3, 120)

        kill_group(doomed)  # its running matches are lost mid-play
        deployment.worker("restarted")
        redis.kill()  # every queued match message is lost
        redis.start()
        deployment.wait(lambda r: r["running"] >= 1, 120)
        postgres.stop()  # the running matches cannot log their next moves
        time.sleep(5)
        postgres.start()
        back = time.monotonic()

        report = deployment.wait(lambda r: r["status"] == "finished", RECOVERY_SECONDS)
        took = time.monotonic() - back
    finally:
        deployment.stop_all()

    print(f"finished {took:.0f}s after the last service came back: {report}")
    assert report["current_unfinished"] == 0
    assert report["replaced"] >= 1, "no match was lost: the faults struck nothing"
    assert report["finished_logged_once"], "a finished match has a log with two starts or results"
    assert report["finished_per_slot"] == [1], "a seat arrangement of a set finished twice"
