"""The test run's environment: a sandbox uid range of its own, whatever the shell exported,
and in a parallel run a test database and a Redis database of each worker's own."""

import os
import subprocess
import sys

import pytest

from config.pytest_plugin import broker_url_of_worker, sandbox_uid_base_of_run

PRINT_UID_BASE = (
    "import os, config.pytest_plugin; print(os.getpid(), os.environ['BAIZE_SANDBOX_UID_BASE'])"
)


def test_an_exported_uid_base_of_a_local_worker_is_replaced_by_the_runs_own_range():
    worker_range = "2000000"
    env = {**os.environ, "BAIZE_SANDBOX_UID_BASE": worker_range}
    out = subprocess.run(
        [sys.executable, "-c", PRINT_UID_BASE], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    pid, uid_base = int(out[0]), int(out[1])
    assert uid_base == sandbox_uid_base_of_run(pid)
    assert uid_base >= 3_000_000 and uid_base != int(worker_range)


def test_this_run_plays_its_bots_in_its_own_range():
    assert os.environ["BAIZE_SANDBOX_UID_BASE"] == str(sandbox_uid_base_of_run(os.getpid()))


PRINT_BROKER_URL = "import os, config.pytest_plugin; print(os.environ['CELERY_BROKER_URL'])"


def test_each_xdist_worker_gets_a_redis_database_of_its_own_and_keeps_it_in_its_children():
    def broker_url_in(env: dict[str, str]) -> str:
        return subprocess.run(
            [sys.executable, "-c", PRINT_BROKER_URL],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    outside = ("BAIZE_TEST_RUN_BROKER_URL", "PYTEST_XDIST_WORKER")
    run = {name: value for name, value in os.environ.items() if name not in outside}
    run["CELERY_BROKER_URL"] = "redis://127.0.0.1:6379/12"
    assert broker_url_in(run) == "redis://127.0.0.1:6379/12"
    assert broker_url_in({**run, "PYTEST_XDIST_WORKER": "gw0"}) == "redis://127.0.0.1:6379/12"
    # A worker inherits the run's URL, kept aside by its controller.
    worker = {
        **run,
        "PYTEST_XDIST_WORKER": "gw1",
        "BAIZE_TEST_RUN_BROKER_URL": run["CELERY_BROKER_URL"],
    }
    assert broker_url_in(worker) == "redis://127.0.0.1:6379/13"
    # A process the worker starts inherits the worker's URL: it stays on the same database.
    child = {**worker, "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13"}
    assert broker_url_in(child) == "redis://127.0.0.1:6379/13"


def test_a_worker_without_a_redis_database_of_its_own_is_refused_with_the_fix():
    assert broker_url_of_worker("redis://:secret@h:6379", 2) == "redis://:secret@h:6379/2"
    with pytest.raises(ValueError, match="choose a database number of at most 14"):
        broker_url_of_worker("redis://127.0.0.1:6379/15", 1)


@pytest.mark.django_db
def test_an_xdist_worker_has_a_test_database_of_its_own():
    from django.db import connection

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if connection.vendor == "sqlite" or worker is None:
        return  # an in-memory database is the process's own anyway
    assert connection.settings_dict["NAME"] == f"{os.environ['DATABASE_TEST_NAME']}_{worker}"
