"""Uploaded versions: uploading one, checking it, and the launcher its code plays through.

An upload is checked in memory (``bots.bot_code``) before anything is written; only a good one
is stored (content-addressed, in the store every worker reads: ``bots.code_cache``) and
becomes a ``pending`` version, whose check is queued once
the transaction commits. The check is a short smoke match in each seat against the built-in
random bot, inside the sandbox, and a second one in the same process for a bot whose first
``ready`` says it plays series (so a series bot that breaks on its second ``start`` is
turned away at upload, not in a tournament). It moves the version from ``pending`` to
``ready`` or ``rejected``, and records whether it plays series, with a conditional update,
so a twice-delivered check task writes once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.rules import Game, get_game

from .bot_code import BotCode, UploadLimits, UploadRejected, read_upload
from .code_cache import CodeUnavailable, cached_code_dir, code_cache_put, code_publish
from .models import Bot, BotVersion
from .queues import FIRST_PRIORITY, SANDBOXED_QUEUE
from .referee import Limits, MatchResult
from .runner import BotLauncher, BuiltinLauncher
from .sandbox import SandboxUnsafe, current_sandbox, sandbox_limits
from .series import Series

logger = logging.getLogger(__name__)

#: The seed of the first smoke match, the others' following it: fixed, so a check can be
#: repeated exactly.
SMOKE_SEED = 20260401


def upload_limits() -> UploadLimits:
    return UploadLimits(
        max_bytes=settings.BAIZE_UPLOAD_MAX_BYTES,
        max_unpacked_bytes=settings.BAIZE_UPLOAD_MAX_UNPACKED_BYTES,
        max_files=settings.BAIZE_UPLOAD_MAX_FILES,
    )


def bot_version_upload(*, bot: Bot, filename: str, data: bytes) -> BotVersion:
    """Check, store and record a new version of ``bot``; ``UploadRejected`` changes nothing."""
    code = read_upload(filename, data, upload_limits())
    _refuse_duplicate(bot, code)
    try:
        with transaction.atomic():
            # Row lock: two uploads at once must not both take the next number.
            Bot.objects.select_for_update().get(id=bot.id)
            code_publish(code)
            latest = bot.versions.order_by("-number").values_list("number", flat=True).first()
            version = BotVersion.objects.create(
                bot=bot, number=(latest or 0) + 1, content_hash=code.content_hash, size=code.size
            )
            transaction.on_commit(lambda: _enqueue_check(version.id))
    except IntegrityError:
        # The same code uploaded twice at once: the unique constraint let one through.
        _refuse_duplicate(bot, code)
        raise
    code_cache_put(code)
    return version


def _refuse_duplicate(bot: Bot, code: BotCode) -> None:
    number = (
        bot.versions.filter(content_hash=code.content_hash, builtin="")
        .values_list("number", flat=True)
        .first()
    )
    if number is not None:
        raise UploadRejected(
            "duplicate_version", f"this code is already version {number} of {bot}", status=409
        )


def _enqueue_check(version_id: int) -> None:
    from .tasks import bot_version_check_task  # tasks import this module

    bot_version_check_task.apply_async(
        (version_id,), queue=SANDBOXED_QUEUE, priority=FIRST_PRIORITY
    )


def version_code_dir(version: BotVersion) -> Path:
    """The local folder of an uploaded version's code; ``CodeUnavailable`` if no store has it."""
    return cached_code_dir(version.content_hash)


def uploaded_launcher(version: BotVersion, **limit_overrides: int) -> BotLauncher:
    """The sandboxed launcher of an uploaded version; ``SandboxUnsafe`` if the machine's
    sandbox is below the safe level."""
    if version.builtin:
        raise ValueError(f"{version} is built in, not uploaded")
    sandbox = current_sandbox()
    if not sandbox.report.safe:
        raise SandboxUnsafe(sandbox.report.reason)
    limits = sandbox_limits(**limit_overrides)
    return sandbox.launcher(version_code_dir(version), limits=limits)


def smoke_options(game: Game) -> dict[str, Any]:
    """The shortest match the game allows: every integer option at its minimum."""
    return {
        option["name"]: option["minimum"]
        for option in game.describe()["options"]
        if option.get("type") == "integer" and "minimum" in option
    }


def server_limits() -> Limits:
    return Limits(
        decision_seconds=settings.BAIZE_DECISION_TIMEOUT,
        start_seconds=settings.BAIZE_BOT_START_TIMEOUT,
        time_bank_seconds=settings.BAIZE_TIME_BANK_SECONDS,
    )


def bot_version_check(*, version_id: int) -> BotVersion:
    """Play the smoke matches of a pending version and record the verdict.

    A machine whose sandbox is unsafe leaves the version pending, saying why; so does one
    that cannot get the code, raising ``CodeUnavailable`` for the task to retry.
    """
    version = BotVersion.objects.select_related("bot").get(id=version_id)
    if version.status != BotVersion.Status.PENDING:
        return version
    try:
        launcher = uploaded_launcher(version)
    except SandboxUnsafe as error:
        logger.warning("version %s not checked: %s", version_id, error)
        BotVersion.objects.filter(id=version_id, status=BotVersion.Status.PENDING).update(
            status_reason=f"waiting for a worker with a safe sandbox: {error}"
        )
        return BotVersion.objects.get(id=version_id)
    except CodeUnavailable as error:
        # Retried by the task: another worker, or this one later, may reach the store.
        BotVersion.objects.filter(id=version_id, status=BotVersion.Status.PENDING).update(
            status_reason=f"waiting for its code: {error}"
        )
        raise
    check = smoke_test(get_game(version.bot.game), lambda: launcher)
    status = BotVersion.Status.REJECTED if check.problem else BotVersion.Status.READY
    # Conditional: of two deliveries of the check, the first verdict stands.
    BotVersion.objects.filter(id=version_id, status=BotVersion.Status.PENDING).update(
        status=status,
        status_reason=check.problem,
        check_log=check.log,
        plays_series=check.plays_series,
        checked_at=timezone.now(),
    )
    return BotVersion.objects.get(id=version_id)


class SmokeCheck(NamedTuple):
    #: What went wrong, "" if nothing.
    problem: str
    #: The candidate's stderr, match after match.
    log: str
    #: Its first ``ready`` said in both seats that it plays series, and it played a second
    #: match of the series after that.
    plays_series: bool


#: Matches the check plays in each seat with a bot that plays series (one otherwise).
SMOKE_SERIES = 2


def smoke_test(
    game: Game, candidate: Callable[[], BotLauncher], limits: Limits | None = None
) -> SmokeCheck:
    """Play ``candidate`` against the built-in random bot in seat 0, then seat 1: one
    match in each, or a series of ``SMOKE_SERIES`` if it says it plays series."""
    limits = limits or server_limits()
    logs: list[str] = []
    plays_series = True
    for seat in (0, 1):
        players = [BuiltinLauncher("random", seed=seat)]
        players.insert(seat, candidate())
        with Series(players, matches=SMOKE_SERIES) as series:
            for number in range(SMOKE_SERIES):
                # Another deal each match: a series never sees one deal twice.
                state = game.new_match(SMOKE_SEED + 2 * number + seat, smoke_options(game))
                result = series.play(game, state, limits=limits, emit=_ignore)
                logs.append(result.stderr[seat])
                problem = _smoke_problem(result, seat)
                if problem:
                    return SmokeCheck(problem, "\n".join(logs), False)
                if not series.plays_series(seat):
                    plays_series = False
                    break
    return SmokeCheck("", "\n".join(logs), plays_series)


#: How much of the end of its stderr a rejected version's reason quotes.
STDERR_IN_REASON = 2000


def _smoke_problem(result: MatchResult, seat: int) -> str:
    forfeit = result.forfeit
    if forfeit is None:
        return ""
    who = "your bot" if forfeit.seat == seat else "the random bot"
    problem = f"in seat {seat}, {who} forfeited ({forfeit.reason.value}): {forfeit.detail}"
    # The reason is shown to the bot's owner and staff only, so it may quote the bot's stderr.
    tail = result.stderr[seat].strip()[-STDERR_IN_REASON:] if forfeit.seat == seat else ""
    return f"{problem}; your bot's stderr ends with:\n{tail}" if tail else problem


def _ignore(kind: str, payload: dict[str, Any]) -> None:
    pass
