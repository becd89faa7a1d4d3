"""Bot writes: built-in bots, match seats, and playing a match into its event log."""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.models import Match
from games.rules import get_game
from games.services import MatchLeaseLost, match_event_writer

from .models import Bot, BotVersion, MatchSeat, SeatStderr
from .referee import Limits, MatchResult, referee_match
from .runner import BUILTIN_DIR, BotLauncher, BuiltinLauncher
from .uploads import uploaded_launcher

#: Built-in bots of every game, by bot name: the strategy each runs.
BUILTIN_STRATEGIES: dict[str, str] = {"random": "random", "heuristic": "{game}_heuristic"}


def builtin_strategy_names(game_id: str) -> dict[str, str]:
    """Bot name -> strategy module for the built-in bots that exist for ``game_id``."""
    names = {name: strategy.format(game=game_id) for name, strategy in BUILTIN_STRATEGIES.items()}
    return {
        name: strategy
        for name, strategy in names.items()
        if (BUILTIN_DIR / "strategies" / f"{strategy}.py").is_file()
    }


def _builtin_hash(strategy: str) -> str:
    digest = hashlib.sha256()
    for path in (BUILTIN_DIR / "main.py", BUILTIN_DIR / "strategies" / f"{strategy}.py"):
        digest.update(path.read_bytes())
    return digest.hexdigest()


@transaction.atomic
def builtin_bots_sync(*, game_id: str) -> list[BotVersion]:
    """The current version of each built-in bot of ``game_id``, created when its code changed."""
    get_game(game_id)
    versions = []
    for name, strategy in builtin_strategy_names(game_id).items():
        bot, _ = Bot.objects.get_or_create(
            game=game_id, name=name, defaults={"description": f"Built-in: {strategy}"}
        )
        content_hash = _builtin_hash(strategy)
        latest = bot.versions.order_by("-number").first()
        if latest is None or latest.content_hash != content_hash:
            latest = BotVersion.objects.create(
                bot=bot,
                number=(latest.number + 1) if latest else 1,
                builtin=strategy,
                content_hash=content_hash,
                status=BotVersion.Status.READY,
            )
        versions.append(latest)
    return versions


def match_seats_create(*, match: Match, versions: Sequence[BotVersion]) -> list[MatchSeat]:
    """Seat ``versions[0]`` in seat 0 and ``versions[1]`` in seat 1 of ``match``."""
    if len(versions) != 2:
        raise ValueError(f"a match has two seats, got {len(versions)} bot versions")
    return MatchSeat.objects.bulk_create(
        MatchSeat(match=match, seat=seat, version=version) for seat, version in enumerate(versions)
    )


def launcher_for(version: BotVersion, **sandbox_overrides: int) -> BotLauncher:
    """Built-in bots run as plain processes; uploaded ones only in the sandbox, once ready."""
    if version.builtin:
        return BuiltinLauncher(version.builtin)
    if version.status != BotVersion.Status.READY:
        raise ValueError(f"{version} is {version.status}, not ready to play")
    return uploaded_launcher(version, **sandbox_overrides)


def _worker_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _claim(match_id: int, worker: str) -> bool:
    now = timezone.now()
    # Conditional update: of two deliveries of one task, exactly one moves it out of pending.
    claimed = Match.objects.filter(id=match_id, status=Match.Status.PENDING).update(
        status=Match.Status.RUNNING,
        claimed_by=worker,
        started_at=now,
        lease_expires_at=now + timedelta(seconds=settings.BAIZE_MATCH_LEASE_SECONDS),
    )
    return claimed == 1


def match_play(
    *,
    match_id: int,
    decision_seconds: float | None = None,
    time_bank_seconds: float | None = None,
    sandbox_overrides: Mapping[str, int] | None = None,
) -> MatchResult | None:
    """Play a pending match to its end, logging it as it goes; None if it was not pending.

    A second delivery of the same task finds the match claimed and returns without touching
    it, so nothing is appended twice. A match the tick declared dead while it ran (its lease
    ran out) is dropped: bots closed, nothing more logged, None returned. The time limits
    and sandbox limits (``SandboxLimits`` fields) default to the settings; a tournament may
    override them.
    """
    if not _claim(match_id, _worker_identity()):
        return None
    match = Match.objects.get(id=match_id)
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    try:
        limits = Limits(
            decision_seconds=decision_seconds or settings.BAIZE_DECISION_TIMEOUT,
            start_seconds=settings.BAIZE_BOT_START_TIMEOUT,
            time_bank_seconds=settings.BAIZE_TIME_BANK_SECONDS
            if time_bank_seconds is None
            else time_bank_seconds,
        )
        launchers = [launcher_for(seat.version, **(sandbox_overrides or {})) for seat in seats]
        result = _referee(match, seats, limits, launchers)
    except MatchLeaseLost:
        # Its replacement is being played elsewhere; the referee has closed both bots.
        return None
    except BaseException:
        Match.objects.filter(id=match_id, status=Match.Status.RUNNING).update(
            status=Match.Status.FAILED, finished_at=timezone.now()
        )
        raise
    Match.objects.filter(id=match_id, status=Match.Status.RUNNING).update(
        status=Match.Status.FINISHED,
        winner=result.winner,
        scores=list(result.scores),
        result_reason=result.reason.value,
        finished_at=timezone.now(),
        lease_expires_at=None,
    )
    _stderr_store(seats, result)
    return result


def _stderr_store(seats: list[MatchSeat], result: MatchResult) -> None:
    SeatStderr.objects.bulk_create(
        SeatStderr(seat=seat, text=result.stderr[seat.seat])
        for seat in seats
        if result.stderr[seat.seat]
    )


def _referee(
    match: Match, seats: list[MatchSeat], limits: Limits, launchers: list[BotLauncher]
) -> MatchResult:
    game = get_game(match.game)
    with match_event_writer(match=match, players=[_player(seat) for seat in seats]) as writer:
        return referee_match(
            game,
            game.new_match(match.seed, match.options),
            launchers,
            limits=limits,
            emit=writer.emit,
            cpu=_match_cpu(),
        )


def _player(seat: MatchSeat) -> dict[str, Any]:
    version = seat.version
    return {
        "seat": seat.seat,
        "bot": str(version.bot),
        "version_id": version.pk,
        "content_hash": version.content_hash,
    }


def _match_cpu() -> int | None:
    if not settings.BAIZE_PIN_MATCHES:
        return None
    allowed = sorted(os.sched_getaffinity(0))
    # Spread concurrent worker processes over the CPUs: one match, one CPU.
    return allowed[os.getpid() % len(allowed)]
