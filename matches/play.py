"""Playing a match: claim it, run its bots through the referee, log it as it goes.

Every write of the match's row goes through ``matches.services``; this module only ties
the referee (``bots.referee``) and the bots' launchers to them.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings

from bots.referee import Limits, MatchResult, referee_match
from bots.runner import BotLauncher
from bots.series import Series
from bots.services import launcher_for, version_code_prepare
from games.rules import get_game

from . import services
from .models import Match, MatchSeat
from .services import MatchEventWriter, MatchLeaseLost, MatchNotPending, match_event_writer


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
    limits = _limits(decision_seconds, time_bank_seconds)
    overrides = dict(sandbox_overrides or {})

    def referee(match: Match, seats: list[MatchSeat], writer: MatchEventWriter) -> MatchResult:
        launchers = [launcher_for(seat.version, **overrides) for seat in seats]
        game = get_game(match.game)
        with writer:
            return referee_match(
                game,
                game.new_match(match.seed, match.options),
                launchers,
                limits=limits,
                emit=writer.emit,
                cpu=_match_cpu(),
                on_idle=writer.idle,
            )

    return _claim_and_play(match_id, referee)


class MatchSeries:
    """Pending matches between the same two versions in the same seats, played one after
    another with one bot process per seat where the bots allow it (``bots.series``).

    ``play`` claims each match only as it starts it, so the matches a dead worker never
    reached stay pending for another (each is still logged exactly once). A match whose
    versions or seats differ from the series' first is played on its own. The sandbox's
    CPU limit, a backstop per process, is ``matches`` times the per-match one: a process
    may play that many matches.
    """

    def __init__(
        self,
        *,
        matches: int,
        decision_seconds: float | None = None,
        time_bank_seconds: float | None = None,
        sandbox_overrides: Mapping[str, int] | None = None,
    ) -> None:
        self.matches = matches
        self._limits = _limits(decision_seconds, time_bank_seconds)
        self._overrides = dict(sandbox_overrides or {})
        self._series: Series | None = None
        self._versions: tuple[int, ...] | None = None

    def play(self, *, match_id: int) -> MatchResult | None:
        """Play the series' next match, as ``match_play`` does; None if it was not pending."""
        return _claim_and_play(match_id, self._referee, skipped=self._skip)

    def _skip(self) -> None:
        if self._series is not None:
            self._series.skip()

    def _referee(
        self, match: Match, seats: list[MatchSeat], writer: MatchEventWriter
    ) -> MatchResult:
        versions = tuple(seat.version_id for seat in seats)
        if self._series is None:
            self._versions = versions
            self._series = Series(self._launchers(seats), matches=self.matches, cpu=_match_cpu())
        elif versions != self._versions or self._series.played >= self.matches:
            raise ValueError(
                f"match {match.pk} does not belong to this series: seats {versions},"
                f" the series plays {self._versions}, {self._series.played} matches played"
            )
        game = get_game(match.game)
        with writer:
            return self._series.play(
                game,
                game.new_match(match.seed, match.options),
                limits=self._limits,
                emit=writer.emit,
                on_idle=writer.idle,
            )

    def _launchers(self, seats: list[MatchSeat]) -> list[BotLauncher]:
        cpu = self._overrides.get("cpu_seconds", settings.BAIZE_SANDBOX_LIMITS["cpu_seconds"])
        overrides = {**self._overrides, "cpu_seconds": cpu * self.matches}
        return [launcher_for(seat.version, **overrides) for seat in seats]

    def close(self) -> None:
        if self._series is not None:
            self._series.close()

    def __enter__(self) -> MatchSeries:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _limits(decision_seconds: float | None, time_bank_seconds: float | None) -> Limits:
    return Limits(
        decision_seconds=decision_seconds or settings.BAIZE_DECISION_TIMEOUT,
        start_seconds=settings.BAIZE_BOT_START_TIMEOUT,
        time_bank_seconds=settings.BAIZE_TIME_BANK_SECONDS
        if time_bank_seconds is None
        else time_bank_seconds,
    )


def _claim_and_play(
    match_id: int,
    referee: Callable[[Match, list[MatchSeat], MatchEventWriter], MatchResult],
    skipped: Callable[[], None] | None = None,
) -> MatchResult | None:
    claimed = _claim(match_id)
    if claimed is None:
        if skipped is not None:
            skipped()
        return None
    match, seats, writer = claimed
    try:
        result = referee(match, seats, writer)
    except MatchLeaseLost:
        # Its replacement is being played elsewhere; the referee has closed both bots.
        return None
    except BaseException:
        services.match_fail(match_id=match_id)
        raise
    # The result was committed with the log's last event; stderr is known only now that
    # the match is over (a bot kept for the next match of a series has been frozen).
    services.seat_stderr_store(match=match, stderr=result.stderr)
    return result


def _claim(match_id: int) -> tuple[Match, list[MatchSeat], MatchEventWriter] | None:
    """The pending match, its seats and its writer, claimed together with the log's first
    event in one commit; None if it was not pending, ``CodeUnavailable`` (the match still
    pending) if a bot's code is in no store this worker can read."""
    match = Match.objects.filter(id=match_id, status=Match.Status.PENDING).first()
    if match is None:
        return None
    seats = list(match.seats.select_related("version__bot").order_by("seat"))
    for seat in seats:
        # Before the claim: a worker that cannot get the code leaves the match pending.
        version_code_prepare(seat.version)
    players = [_player(seat) for seat in seats]
    try:
        writer = match_event_writer(match=match, players=players, claim_for=_worker_identity())
    except MatchNotPending:
        return None
    return match, seats, writer


def _worker_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


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
