"""Fixtures of the bots tests: the real sandbox (never skipped quietly), a fresh code store,
fresh throttle counters, and API clients."""

from __future__ import annotations

import os
import uuid

import pytest

from tests.processes import process_table
from tests.tournaments.conftest import celery_workers, committed_db  # noqa: F401

#: Set to 1 on a machine that cannot run the full sandbox, to skip its tests instead of
#: failing them. CI and ``make test`` never set it: there, a weaker sandbox is a failure.
ALLOW_NO_SANDBOX = os.environ.get("BAIZE_ALLOW_NO_SANDBOX") == "1"


@pytest.fixture(scope="session")
def sandbox():
    """This machine's sandbox, which must be at the safe level."""
    from bots.services.launch import current_sandbox

    probed = current_sandbox()
    if not probed.report.safe:
        message = f"the sandbox is not safe here:\n{probed.report.describe()}"
        if ALLOW_NO_SANDBOX:
            pytest.skip(message)
        pytest.fail(message)
    return probed


@pytest.fixture(autouse=True)
def _tasks_in_process(monkeypatch):
    """Checks queued on commit run in the test's process, also where CI points Celery at
    Redis (these tests are about the check, not the queue)."""
    from bots.tasks import bot_version_check_task

    def run_here(args: tuple, **options: object) -> None:
        bot_version_check_task.apply(args, throw=True)

    monkeypatch.setattr(bot_version_check_task, "apply_async", run_here)


@pytest.fixture(autouse=True)
def _fresh_throttles():
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def code_store(settings):
    """An empty content-addressed store of uploaded code, readable by the sandbox's uids."""
    store = settings.VAR_DIR / "code-stores" / uuid.uuid4().hex
    store.mkdir(parents=True)
    for folder in (store.parent.parent, store.parent, store):
        folder.chmod(0o755)
    settings.BAIZE_BOT_CODE_DIR = store
    return store


def stray_sandbox_processes() -> list[int]:
    """Pids still alive under any sandbox slot uid (zombies excluded)."""
    from bots.services.launch import sandbox_config

    config = sandbox_config()
    uids = range(config.uid_base, config.uid_base + config.slots)
    return [entry.pid for entry in process_table() if entry.uid in uids and entry.state != "Z"]
