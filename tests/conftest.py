"""Shared fixtures, and the rule that service tests never skip silently in CI."""

from __future__ import annotations

import os

import pytest

REQUIRE_SERVICES = os.environ.get("BAIZE_REQUIRE_SERVICES") == "1"
#: Set by the second pass of ``.ci/run`` (PostgreSQL, Redis, a real worker): the tests that
#: touch no database, broker or worker ran in the first pass, and would only repeat it.
SERVICES_PASS = os.environ.get("BAIZE_SERVICES_PASS") == "1"
#: Fixtures that reach the database (pytest-django's, and the live server's).
_DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}
#: The password of the test authors: long enough for the sign-up's validators.
PASSWORD = "a long enough passphrase"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    # CI sets BAIZE_REQUIRE_SERVICES: a test that needs PostgreSQL, Redis or a worker and
    # skipped for want of them is a failure there, not a pass.
    if REQUIRE_SERVICES and report.skipped and item.get_closest_marker("services"):
        report.outcome = "failed"
        report.longrepr = f"services test skipped while BAIZE_REQUIRE_SERVICES=1: {report.longrepr}"


#: xdist groups (``--dist loadgroup``, as ``make test`` runs): the tests of a group run one
#: after another on one worker. Sandboxed matches are pinned to the first CPU and judged on the
#: CPU time and the wall clock of each decision, so two of them never run at once; the
#: browser tests share a Chromium per module, started once rather than on every worker.
_XDIST_GROUPS = ("sandbox", "browser")


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    # Around the other plugins': pytest-xdist's hook must see the groups added here, and the
    # order is set after pytest-django's, which sorts by kind of database use.
    _group_and_select(config, items)
    yield
    # Longest first: xdist hands tests out in this order (after its groups, largest first),
    # and a long test started last would run alone at the end while the others idle.
    items.sort(key=_expected_seconds, reverse=True)
    _check_the_groups_hold(config, items)


def _group_and_select(config, items) -> None:
    for item in items:
        for group in _XDIST_GROUPS:
            if item.get_closest_marker(group):
                item.add_marker(pytest.mark.xdist_group(group))
                break
    if not SERVICES_PASS:
        return
    kept, left_out = [], []
    for item in items:
        (kept if _uses_a_service(item) else left_out).append(item)
    config.hook.pytest_deselected(items=left_out)
    items[:] = kept


def _expected_seconds(item) -> float:
    """A test's rough length, for the order tests start in: ``slow(seconds=N)`` says it
    (30 when not said), a test not marked slow takes next to nothing."""
    slow = item.get_closest_marker("slow")
    return 0.0 if slow is None else slow.kwargs.get("seconds", 30.0)


#: Set on a test its xdist group did not reach (``_check_the_groups_hold``).
_UNGROUPED = pytest.StashKey[str]()


def _check_the_groups_hold(config, items) -> None:
    """In a ``--dist loadgroup`` worker, xdist marks each grouped test's id with its group
    (``...@sandbox``), by which its scheduler keeps a group on one worker. A test without
    it would run beside the others of its group, unnoticed: it fails instead, saying why
    (an error raised here would only crash the worker, without a word)."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
            item.stash[_UNGROUPED] = (
                f"pytest-xdist did not keep this test in its xdist group: with pytest"
                f" {pytest.__version__} and this pytest-xdist, --dist loadgroup runs the tests"
                " of a group (sandboxed matches pinned to one CPU) side by side"
            )


@pytest.fixture(autouse=True)
def _grouped_as_marked(request):
    if reason := request.node.stash.get(_UNGROUPED, None):
        pytest.fail(reason)


def _uses_a_service(item) -> bool:
    return bool(
        item.get_closest_marker("services")
        or item.get_closest_marker("django_db")
        or _DATABASE_FIXTURES.intersection(item.fixturenames)
    )


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Every test that makes an account or signs in checks a password: Django's own hasher
    spends a quarter of a second of CPU on each, on purpose. Servers the tests start as other
    processes take ``tests.config.fast_password_settings`` where they need the same."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def empty_cache():
    """Tournament versions and what is cached under them live in the process's cache, and
    SQLite gives a rolled-back test's ids out again: every test starts from an empty cache."""
    from django.core.cache import cache

    from web.live import kept_pages_forget

    cache.clear()
    kept_pages_forget()
    yield
    cache.clear()
    kept_pages_forget()


@pytest.fixture
def builtin_snag_versions(db):
    from bots.services.bots import builtin_bots_sync

    return builtin_bots_sync(game_id="snag")


@pytest.fixture
def played_tournament(builtin_snag_versions):
    """A finished Snag round robin of the built-in bots, played in this process."""
    from matches.models import Match
    from tournaments.services import round_robin_create
    from tournaments.tasks import tournament_match_play

    tournament = round_robin_create(
        name="fixture", game_id="snag", versions=builtin_snag_versions, secret=42, enqueue=False
    )
    for match_id in Match.objects.filter(tournament_match__tournament=tournament).values_list(
        "id", flat=True
    ):
        tournament_match_play(match_id)  # called directly: no broker needed
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def alice(db):
    """An author."""
    from django.contrib.auth.models import User

    return User.objects.create_user("alice", password=PASSWORD)


@pytest.fixture
def bob(db):
    """Another author."""
    from django.contrib.auth.models import User

    return User.objects.create_user("bob", password=PASSWORD)
