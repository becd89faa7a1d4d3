"""Fixtures of the arena's tests: those of the bots tests (the real sandbox, never skipped
quietly; a fresh code store; checks run in process), which these tests share."""

from tests.bots.conftest import (  # noqa: F401 - fixtures, found by pytest by name
    ALLOW_NO_SANDBOX,
    _fresh_throttles,
    _tasks_in_process,
    celery_workers,
    code_store,
    committed_db,
    sandbox,
    stray_sandbox_processes,
)
