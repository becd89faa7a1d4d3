"""A check always ends, and says why: its verdict is stored whatever its bot wrote (the log,
the reason quoting its stderr, a build's log quoting its sources), and a check that cannot
finish is tried again, then rejected, the version saying why at every step, never left
pending in silence (``bots.services.check``, ``bots.services.build``, ``bots.tasks``).

These run on SQLite and, in the services pass, on PostgreSQL, which refuses a NUL in text.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.db import DataError, OperationalError

from arena.bot_code import BotCode
from arena.builds import BuildResult
from bots.models import Bot, BotVersion
from bots.services import build, check
from bots.services.check import CheckNotStored, SmokeCheck, check_verdict_store
from bots.tasks import bot_version_check_task

pytestmark = pytest.mark.django_db

#: A rejection's reason quoting the bot's stderr, and its log, as a hostile bot makes them.
PROBLEM = "in seat 0, your bot forfeited (crash): gone; your bot's stderr ends with:\nA=1\0B\udc80"
LOG = "decision 1: PATH=/bin\0LANG=C\0\n\0\0nul\udcff"


@pytest.fixture
def pending(alice) -> BotVersion:
    bot = Bot.objects.create(owner=alice, game="snag", name="checked")
    return BotVersion.objects.create(bot=bot, number=1, content_hash="c0de", size=10)


def test_a_verdict_quoting_nul_bytes_and_surrogates_is_stored_with_them_escaped(pending):
    version = check_verdict_store(version_id=pending.pk, check=SmokeCheck(PROBLEM, LOG, False))

    assert version.status == BotVersion.Status.REJECTED
    assert version.status_reason.endswith("stderr ends with:\nA=1\\x00B\\udc80")
    assert version.check_log == "decision 1: PATH=/bin\\x00LANG=C\\x00\n\\x00\\x00nul\\udcff"
    assert version.checked_at is not None


def test_a_ready_verdict_keeps_its_log_escaped(pending):
    version = check_verdict_store(version_id=pending.pk, check=SmokeCheck("", LOG, True))

    assert (version.status, version.status_reason, version.plays_series) == ("ready", "", True)
    assert "\\x00\\x00nul" in version.check_log


def test_a_verdict_whose_texts_cannot_be_stored_is_stored_without_them(pending, monkeypatch):
    update = check._pending_update
    refusals = iter([DataError("the texts refused")])

    def refusing_once(version_id, **fields):
        for error in refusals:
            raise error
        return update(version_id, **fields)

    monkeypatch.setattr(check, "_pending_update", refusing_once)
    version = check_verdict_store(version_id=pending.pk, check=SmokeCheck(PROBLEM, LOG, False))

    assert version.status == BotVersion.Status.REJECTED
    assert version.status_reason.startswith("in seat 0, your bot forfeited (crash): gone")
    assert version.status_reason.isascii()
    assert version.check_log == (
        f"[the check's log, {len(LOG)} characters, could not be stored: DataError]"
    )


def test_a_verdict_that_cannot_be_stored_at_all_leaves_the_version_pending_for_a_retry(
    pending, monkeypatch
):
    def refusing(version_id, **fields):
        raise OperationalError("the database went away")

    monkeypatch.setattr(check, "_pending_update", refusing)
    with pytest.raises(CheckNotStored, match="the database went away"):
        check_verdict_store(version_id=pending.pk, check=SmokeCheck("", LOG, True))

    assert BotVersion.objects.get(pk=pending.pk).status == BotVersion.Status.PENDING


def broken_check(monkeypatch, error: Exception) -> None:
    def check_raising(*, version_id: int):
        raise error

    monkeypatch.setattr("bots.tasks.bot_version_check", check_raising)


def test_a_check_stopped_by_an_error_says_why_and_raises_for_the_retry(pending, monkeypatch):
    """In a worker, before its last retry: pending, saying why, and the error goes on to
    Celery's retry (called directly here, the retry raises the error itself)."""
    broken_check(monkeypatch, CheckNotStored("its verdict could not be stored: gone"))

    with pytest.raises(CheckNotStored):
        bot_version_check_task.run(pending.pk)

    version = BotVersion.objects.get(pk=pending.pk)
    assert version.status == BotVersion.Status.PENDING
    assert version.status_reason == (
        "the check could not finish (CheckNotStored: its verdict could not be stored: gone);"
        " it will run again"
    )


def test_a_check_that_fails_its_last_retry_is_rejected_saying_why(pending, monkeypatch):
    broken_check(monkeypatch, RuntimeError("the referee broke \0 here"))

    bot_version_check_task.push_request(retries=bot_version_check_task.max_retries)
    try:
        bot_version_check_task.run(pending.pk)
    finally:
        bot_version_check_task.pop_request()

    version = BotVersion.objects.get(pk=pending.pk)
    assert version.status == BotVersion.Status.REJECTED
    assert version.status_reason.startswith(
        "the server could not finish this version's check (RuntimeError: the referee broke"
        " \\x00 here); this is not your bot's doing"
    )
    assert version.checked_at is not None


def test_in_process_a_check_that_fails_is_rejected_at_once_not_retried_in_the_request(
    pending, monkeypatch
):
    calls = []
    broken_check(monkeypatch, RuntimeError("boom"))
    monkeypatch.setattr(
        "bots.tasks.version_check_failed",
        lambda **kwargs: calls.append(kwargs) or check.version_check_failed(**kwargs),
    )

    bot_version_check_task.apply((pending.pk,), throw=True)

    assert [call["final"] for call in calls] == [True], "one try, no retries in the request"
    assert BotVersion.objects.get(pk=pending.pk).status == BotVersion.Status.REJECTED


# The build's log quotes the bot's sources.


@pytest.fixture
def fake_build(monkeypatch, code_store):
    """A build of the pending version that gives ``result`` (set by the test)."""
    runtime = SimpleNamespace(built=True, build="g++ -o bot *.cpp", native_entry=False)
    status = SimpleNamespace(runtime=runtime, versions=["g++ 12"])
    monkeypatch.setattr(build, "safe_sandbox", lambda: None)
    monkeypatch.setattr(build, "version_runtime_status", lambda version: status)
    monkeypatch.setattr(build, "build_key", lambda content_hash, status: "key-" + content_hash)
    monkeypatch.setattr(build, "version_sources_dir", lambda version: code_store)
    outcome = SimpleNamespace(result=None)
    monkeypatch.setattr(build, "build_in_sandbox", lambda *args: outcome.result)
    return outcome


def test_a_failed_build_whose_log_holds_nul_bytes_rejects_with_the_log_escaped(pending, fake_build):
    fake_build.result = BuildResult(None, "bot.cpp:1:1: error: stray '\\0'\n  a\0b \udc80\n", 0.1)

    version = build.version_build(pending)

    escaped = "bot.cpp:1:1: error: stray '\\0'\n  a\\x00b \\udc80"
    assert version.status == BotVersion.Status.REJECTED
    assert version.build_log.startswith("$ g++ -o bot *.cpp\ntoolchain: g++ 12\nfailed in 0.1 s")
    assert version.build_log.endswith(f"warnings included):\n{escaped}")
    assert version.status_reason == f"the build failed:\n{escaped}"


def test_a_build_whose_log_holds_nul_bytes_is_kept_with_the_log_escaped(pending, fake_build):
    built = BotCode({"bot": b"\x7fELF"}, frozenset({"bot"}))
    fake_build.result = BuildResult(built, "warning: null character(s) \0 kept\n", 0.1)

    version = build.version_build(pending)

    assert version.status == BotVersion.Status.PENDING, "built, to be checked"
    assert version.build_log.endswith("\nwarning: null character(s) \\x00 kept")
    assert version.build_hash == built.content_hash
