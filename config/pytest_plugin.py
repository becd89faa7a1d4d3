"""Environment defaults for test runs, loaded by pytest (``-p``) before Django reads settings.

pytest-django configures Django before any ``conftest.py`` is imported, so this cannot
live there.
"""

import os
from urllib.parse import urlsplit, urlunsplit

#: Redis's default number of databases (0-15): a worker's own one must be among them.
REDIS_DATABASES = 16


def sandbox_uid_base_of_run(pid: int) -> int:
    """The first sandbox uid of the test run in process ``pid``: 100 uids of its own, above
    the default instance's range (2,000,000 and its 64 slots)."""
    return 3_000_000 + (pid % 4000) * 100


def xdist_worker_index() -> int | None:
    """This process's pytest-xdist worker number (0 for gw0, ...), None outside a worker."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker.removeprefix("gw")) if worker.startswith("gw") else None


def broker_url_of_worker(url: str, index: int) -> str:
    """The Redis broker URL of xdist worker ``index``: the URL's database number plus
    ``index``, so that workers side by side never take (or purge) each other's tasks."""
    parts = urlsplit(url)
    first = int(parts.path.strip("/") or 0)
    database = first + index
    if database >= REDIS_DATABASES:
        raise ValueError(
            f"CELERY_BROKER_URL {url} leaves no Redis database of its own for xdist worker"
            f" gw{index} (it would be {database}; Redis has 0-{REDIS_DATABASES - 1}):"
            f" choose a database number of at most {REDIS_DATABASES - 1 - index}, or fewer"
            " workers (pytest -n)"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("BAIZE_VAR_DIR", os.path.join(os.getcwd(), "var", "test"))
# One test database per run, so that runs side by side on one PostgreSQL server don't collide.
# Set in the controller of a parallel run before its workers start, so they inherit it, and
# pytest-django gives each worker its own (test_baize_<pid>_gw0, ...).
os.environ.setdefault("DATABASE_TEST_NAME", f"test_baize_{os.getpid()}")
# Each xdist worker its own Redis database, and so its own queues and its own purges: the
# real worker processes the tests start inherit it.
# The run's own URL is kept aside, so that a process a test starts that loads this plugin
# again (inheriting the worker's variables) finds the same database, not the next one.
if os.environ.get("CELERY_BROKER_URL", "").startswith(("redis://", "rediss://")):
    _run_broker_url = os.environ.setdefault(
        "BAIZE_TEST_RUN_BROKER_URL", os.environ["CELERY_BROKER_URL"]
    )
    if xdist_worker_index() is not None:
        os.environ["CELERY_BROKER_URL"] = broker_url_of_worker(
            _run_broker_url, xdist_worker_index()
        )
# Sandbox uids of its own, per run, always: set over any exported BAIZE_SANDBOX_UID_BASE, since
# that is the range a local worker plays in, and the suite's uid sweeps and slot locks would
# then kill its bots or wait on its slots. Another instance's worker, or another checkout's
# test run on this host, plays under other uids. In a parallel run each xdist worker is a run
# of its own here (its own pid), so the workers never share a uid or a slot cgroup.
os.environ["BAIZE_SANDBOX_UID_BASE"] = str(sandbox_uid_base_of_run(os.getpid()))
os.environ.setdefault("BAIZE_CACHE", "locmem")  # in-process tests: query counts stay true


def pytest_sessionfinish(session, exitstatus):
    """The run's slot cgroups go with it: each run has its own uid base, so its own folder."""
    from arena.sandbox.cgroups import slot_cgroups_remove

    slot_cgroups_remove(int(os.environ["BAIZE_SANDBOX_UID_BASE"]))
