"""The test run's environment: a sandbox uid range of its own, whatever the shell exported."""

import os
import subprocess
import sys

from config.pytest_plugin import sandbox_uid_base_of_run

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
