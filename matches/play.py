"""Playing a match: claim it, run its bots through the referee, log it as it goes.

Every write of the match's row goes through ``matches.services``; this module only ties
the referee (``bots.referee``) and the bots' launchers to them.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import Any

from django.conf import settings

from bots.referee import Limits, MatchResult, referee_match
from bots.runner import BotLauncher
from bots.services import launcher_for, version_code_prepare
from games.rules import get_game

from . import services
from .models import Match, MatchSeat
from .services import MatchLeaseLost, match_event_writer


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
    override them. ``CodeUnavailable`` if a bot's code is in no store this worker can
    read; the match is then still pending, for a retry.
    """
    seats = list(
        MatchSeat.objects.filter(match_id=match_id, match__status=Match.Status.PENDING)
        .select_related("version__bot")
        .order_by("seat")
    )
    for seat in seats:
        # Before the claim: a worker that cannot get the code leaves the match pending.
        version_code_prepare(seat.version)
    if not services.match_claim(match_id=match_id, worker=_worker_identity()):
        return None
    match = Match.objects.get(id=match_id)
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
        services.match_fail(match_id=match_id)
        raise
    # The result was committed with the log's last event; stderr is known only now that
    # both bots are closed.
    services.seat_stderr_store(match=match, stderr=result.stderr)
    return result


def _worker_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


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
            on_idle=writer.idle,
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
