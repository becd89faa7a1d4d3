"""Uploaded versions in real matches: played in the sandbox, their stderr kept for the owner."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.bot_code import BotCode, store_code
from arena.runner import BuiltinLauncher
from arena.sandbox import SandboxLauncher
from bots.models import Bot, BotVersion
from bots.services.bots import builtin_bots_sync
from bots.services.launch import launcher_for
from matches.models import Match, SeatStderr
from matches.play import MatchLimits, match_play
from matches.services import match_create, match_seats_create

from .conftest import stray_sandbox_processes
from .uploads import GOOD_BOT


@pytest.fixture
def uploaded_version(db, code_store):
    owner = User.objects.create_user("alice", password="x")
    bot = Bot.objects.create(owner=owner, game="snag", name="alices")
    code = BotCode({"bot.py": GOOD_BOT})
    store_code(code, code_store)
    return BotVersion.objects.create(
        bot=bot, number=1, content_hash=code.content_hash, size=code.size, status="ready"
    )


def test_built_in_bots_run_unsandboxed_and_uploads_in_the_sandbox(uploaded_version, sandbox):
    builtin = builtin_bots_sync(game_id="snag")[0]
    assert isinstance(launcher_for(builtin), BuiltinLauncher)
    launcher = launcher_for(uploaded_version)
    assert isinstance(launcher, SandboxLauncher)
    assert launcher.code_dir.name == uploaded_version.content_hash


@pytest.mark.parametrize("status", ["pending", "rejected"])
def test_a_version_that_is_not_ready_does_not_play(uploaded_version, status):
    uploaded_version.status = status
    with pytest.raises(ValueError, match=f"is {status}, not ready"):
        launcher_for(uploaded_version)


def test_a_tournament_may_override_the_sandbox_limits(uploaded_version, sandbox):
    launcher = launcher_for(uploaded_version, memory_bytes=256 << 20)
    assert launcher.limits.memory_bytes == 256 << 20
    spec = launcher.launch_spec()
    try:
        assert f"--as={256 << 20}" in spec.argv
    finally:
        for fd in spec.pass_fds:
            os.close(fd)
        spec.on_close()


@pytest.mark.sandbox
def test_an_uploaded_bot_plays_a_match_and_only_its_owner_sees_its_stderr(
    uploaded_version, sandbox
):
    random_version = builtin_bots_sync(game_id="snag")[0]
    match = match_create(game_id="snag", seed=4, options={"target": 5})
    match_seats_create(match=match, versions=[uploaded_version, random_version])
    result = match_play(match_id=match.pk, limits=MatchLimits(time_bank_seconds=2.0))
    assert result is not None and result.forfeit is None
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    assert stray_sandbox_processes() == []
    stored = SeatStderr.objects.get(seat__match=match, seat__seat=0)
    assert stored.text.startswith("thinking\n")
    assert not SeatStderr.objects.filter(seat__match=match, seat__seat=1).exists()

    path = f"/api/matches/{match.pk}/seats/0/stderr/"
    owner = APIClient()
    token = Token.objects.create(user=uploaded_version.bot.owner)
    owner.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert owner.get(path).json()["stderr"] == stored.text
    stranger = APIClient()
    stranger.force_authenticate(User.objects.create_user("mallory", password="x"))
    refused = stranger.get(path)
    assert refused.status_code == 403
    assert refused.json()["detail"] == "only the bot's owner and staff see its stderr"
    assert APIClient().get(path).status_code == 401
    staff = APIClient()
    staff.force_authenticate(User.objects.create_user("root", password="x", is_staff=True))
    assert staff.get(path).status_code == 200


@pytest.fixture
def weak_sandbox(monkeypatch) -> None:
    """This process's sandbox below full, as a pool process may find it on probing again."""
    from arena.sandbox import Sandbox, SandboxLevel, SandboxReport
    from bots.services import launch
    from bots.services.launch import sandbox_config

    weak = Sandbox(sandbox_config(), SandboxReport(SandboxLevel.LIMITS, {"namespaces": "no"}))
    monkeypatch.setattr(launch, "current_sandbox", lambda: weak)
    monkeypatch.setattr(launch, "sandbox_probe_again", lambda **_: None)


def assert_waiting_for_a_safe_sandbox(version: BotVersion) -> None:
    version.refresh_from_db()
    assert version.status == "pending"
    assert version.status_reason.startswith("waiting for a worker with a safe sandbox: ")
    assert "below full" in version.status_reason


def test_on_a_machine_without_a_safe_sandbox_a_version_waits_and_says_why(
    uploaded_version, weak_sandbox
):
    from bots.services.check import bot_version_check
    from bots.services.launch import SandboxNotReady

    BotVersion.objects.filter(pk=uploaded_version.pk).update(status="pending")
    with pytest.raises(SandboxNotReady, match="below full"):
        bot_version_check(version_id=uploaded_version.pk)
    assert_waiting_for_a_safe_sandbox(uploaded_version)


def test_a_worker_whose_sandbox_fell_below_full_sends_the_check_to_a_retry(
    uploaded_version, weak_sandbox
):
    """Called directly, as in a worker before its last retry, Celery's retry raises the error
    itself: the check goes back to the queue, where a worker with a full sandbox takes it."""
    from bots.services.launch import SandboxNotReady
    from bots.tasks import bot_version_check_task

    BotVersion.objects.filter(pk=uploaded_version.pk).update(status="pending")
    with pytest.raises(SandboxNotReady):
        bot_version_check_task.run(uploaded_version.pk)
    assert_waiting_for_a_safe_sandbox(uploaded_version)


def test_a_match_of_an_upload_on_a_sandbox_below_full_stays_pending_for_a_retry(
    uploaded_version, weak_sandbox
):
    """Refused before the claim: another worker, or this one once its sandbox is full
    again, plays it (the task retries), where a claimed match would have failed."""
    from bots.services.launch import SandboxNotReady
    from matches.selectors import match_event_count

    random_version = builtin_bots_sync(game_id="snag")[0]
    match = match_create(game_id="snag", seed=7, options={"target": 5})
    match_seats_create(match=match, versions=[random_version, uploaded_version])

    with pytest.raises(SandboxNotReady, match="below full"):
        match_play(match_id=match.pk)
    assert Match.objects.get(pk=match.pk).status == Match.Status.PENDING
    assert match_event_count(match_id=match.pk) == 0


def test_where_tasks_run_in_process_a_check_without_a_safe_sandbox_waits_saying_why(
    uploaded_version, weak_sandbox
):
    from bots.tasks import bot_version_check_task

    BotVersion.objects.filter(pk=uploaded_version.pk).update(status="pending")
    bot_version_check_task.apply((uploaded_version.pk,), throw=True)
    assert_waiting_for_a_safe_sandbox(uploaded_version)


@pytest.mark.sandbox
def test_a_second_delivery_of_a_check_changes_nothing(uploaded_version, sandbox):
    from bots.services.check import bot_version_check

    BotVersion.objects.filter(pk=uploaded_version.pk).update(status="pending")
    first = bot_version_check(version_id=uploaded_version.pk)
    assert first.status == "ready"
    BotVersion.objects.filter(pk=uploaded_version.pk).update(check_log="kept")
    second = bot_version_check(version_id=uploaded_version.pk)
    assert (second.status, second.check_log, second.checked_at) == (
        "ready",
        "kept",
        first.checked_at,
    )
