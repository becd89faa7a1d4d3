"""Environment defaults for test runs, loaded by pytest (``-p``) before Django reads settings.

pytest-django configures Django before any ``conftest.py`` is imported, so this cannot
live there.
"""

import os


def sandbox_uid_base_of_run(pid: int) -> int:
    """The first sandbox uid of the test run in process ``pid``: 100 uids of its own, above
    the default instance's range (2,000,000 and its 64 slots)."""
    return 3_000_000 + (pid % 4000) * 100


os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("BAIZE_VAR_DIR", os.path.join(os.getcwd(), "var", "test"))
# One test database per run, so that runs side by side on one PostgreSQL server don't collide.
os.environ.setdefault("DATABASE_TEST_NAME", f"test_baize_{os.getpid()}")
# Sandbox uids of its own, per run, always: set over any exported BAIZE_SANDBOX_UID_BASE, since
# that is the range a local worker plays in, and the suite's uid sweeps and slot locks would
# then kill its bots or wait on its slots. Another instance's worker, or another checkout's
# test run on this host, plays under other uids.
os.environ["BAIZE_SANDBOX_UID_BASE"] = str(sandbox_uid_base_of_run(os.getpid()))
os.environ.setdefault("BAIZE_CACHE", "locmem")  # in-process tests: query counts stay true


def pytest_sessionfinish(session, exitstatus):
    """The run's slot cgroups go with it: each run has its own uid base, so its own folder."""
    from bots.sandbox.cgroups import slot_cgroups_remove

    slot_cgroups_remove(int(os.environ["BAIZE_SANDBOX_UID_BASE"]))
