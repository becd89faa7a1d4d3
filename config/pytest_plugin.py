"""Environment defaults for test runs, loaded by pytest (``-p``) before Django reads settings.

pytest-django configures Django before any ``conftest.py`` is imported, so this cannot
live there.
"""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("BAIZE_VAR_DIR", os.path.join(os.getcwd(), "var", "test"))
# One test database per run, so that runs side by side on one PostgreSQL server don't collide.
os.environ.setdefault("DATABASE_TEST_NAME", f"test_baize_{os.getpid()}")
# Sandbox uids of its own, per run: a worker of another instance, or another checkout's test
# run on this host, plays under other uids, and the suite's uid sweeps never touch theirs.
os.environ.setdefault("BAIZE_SANDBOX_UID_BASE", str(3_000_000 + (os.getpid() % 4000) * 100))
os.environ.setdefault("BAIZE_CACHE", "locmem")  # in-process tests: query counts stay true


def pytest_sessionfinish(session, exitstatus):
    """The run's slot cgroups go with it: each run has its own uid base, so its own folder."""
    from bots.sandbox.cgroups import slot_cgroups_remove

    slot_cgroups_remove(int(os.environ["BAIZE_SANDBOX_UID_BASE"]))
