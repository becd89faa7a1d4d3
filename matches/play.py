"""Playing a match: claim it, run its bots through the referee, log it as it goes.

Every write of the match's row goes through ``matches.services``; this module only ties
the referee (``bots.referee``) and the bots' launchers to them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from bots.referee import Limits, MatchResult, referee_match
from bots.runner import BotLauncher
from bots.series import Series
from bots.services.launch import launcher_for, version_code_prepare, version_toolchain
from games.rules import get_game

from . import services
from .models import Match, MatchSeat
from .services import MatchEventWriter, MatchLeaseLost, MatchNotPending, match_event_writer


@dataclass(frozen=True)
class MatchLimits:
    """A match's limits, as its tournament sets them; ``None`` takes the server's setting.

    ``sandbox_overrides`` are ``SandboxLimits`` fields (the tournament's ``sandbox_overrides``).
    """

    decision_seconds: float | None = None
    time_bank_seconds: float | None = None
    sandbox_overrides: Mapping[str, int] = field(default_factory=dict)

    def referee_limits(self) -> Limits:
        return Limits(
            decision_seconds=self.decision_seconds or settings.BAIZE_DECISION_TIMEOUT,
            start_seconds=settings.BAIZE_BOT_START_TIMEOUT,
            time_bank_seconds=settings.BAIZE_TIME_BANK_SECONDS
            if self.time_bank_seconds is None
            else self.time_bank_seconds,
            match_seconds=settings.BAIZE_MATCH_WALL_SECONDS,
        )


def match_play(*, match_id: int, limits: MatchLimits = MatchLimits()) -> MatchResult | None:
    """Play a pending match to its end, logging it as it goes; None if it was not pending.

    A second delivery of the same task finds the match claimed and returns without touching
    it, so nothing is appended twice. A match the tick declared dead while it ran (its lease
    ran out) is dropped: bots closed, nothing more logged, None returned. The time limits
    and sandbox limits default to the settings; a tournament may override them
    (``MatchLimits``). ``CodeUnavailable`` if a bot's code is in no store this worker can
    read; the match is then still pending, for a retry.
    """
    referee_limits = limits.referee_limits()
    overrides = dict(limits.sandbox_overrides)

    def referee(match: Match, seats: list[MatchSeat], writer: MatchEventWriter) -> MatchResult:
        launchers = [
            launcher_for(seat.version, bot_seed=bot_seed(match, seat), **overrides)
            for seat in seats
        ]
        game = get_game(match.game)
        with writer:
            return referee_match(
                game,
                game.new_match(match.seed, match.options),
                launchers,
                limits=referee_limits,
                emit=writer.emit,
                cpu=_match_cpu(),
                on_idle=writer.idle,
            )

    return _claim_and_play(match_id, referee, bot_seeds=_bot_seeds)


#: Built-in bots' seeds are below 2**53: exact in any JSON reader, a JavaScript number too.
_BOT_SEED_BITS = 53


def bot_seed(match: Match, seat: MatchSeat) -> int | None:
    """The seed of a built-in bot's random generator in ``match`` (None for an uploaded bot):
    the first 8 bytes of SHA-256 of ``baize-bot:{match seed}:{seat}``, big-endian, cut to
    53 bits. Recorded as the seat's ``bot_seed`` in ``match_started``, so that the match can
    be played again at home (``manage.py play --replay``)."""
    if not seat.version.builtin:
        return None
    digest = hashlib.sha256(f"baize-bot:{match.seed}:{seat.seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << _BOT_SEED_BITS) - 1)


def _bot_seeds(match: Match, seats: list[MatchSeat]) -> list[int | None]:
    return [bot_seed(match, seat) for seat in seats]


class MatchSeries:
    """The matches of one task, played one after another with one bot process per seat and
    seating where the bots allow it (``bots.series``), and never one deal twice in a process.

    ``match_ids`` is the task's plan, in order: typically the sets of one pairing, each set's
    two matches (one deal, seats swapped) back to back. Each match goes to a ``Series`` of its
    seat arrangement that has not yet played its deal, so the two seatings of a set are played
    by two series, one after the other, by different processes; the processes of the series
    not playing are frozen. ``play`` claims each match only as it starts it, so the matches a
    dead worker never reached stay pending for another (each is still logged exactly once).
    The sandbox's CPU limit, a backstop per process, is the per-match one times the matches
    its series plays.
    """

    def __init__(
        self,
        *,
        match_ids: Sequence[int],
        limits: MatchLimits = MatchLimits(),
    ) -> None:
        self._limits = limits.referee_limits()
        self._overrides = dict(limits.sandbox_overrides)
        self._place, self._lengths = _series_plan(match_ids)
        self._series: dict[int, Series] = {}
        #: Each series' built-in bots' seeds, from its first match: a built-in bot plays match
        #: N of its series with its seed + N - 1 (``bots/builtin/main.py``).
        self._bot_seeds: dict[int, list[int | None]] = {}

    def play(self, *, match_id: int) -> MatchResult | None:
        """Play the plan's next match, as ``match_play`` does; None if it was not pending."""
        index = self._place.get(match_id)
        if index is None:
            raise ValueError(f"match {match_id} is not in this task's plan")
        return _claim_and_play(
            match_id,
            functools.partial(self._referee, index),
            skipped=functools.partial(self._skip, index),
            bot_seeds=functools.partial(self._match_bot_seeds, index),
        )

    def _match_bot_seeds(
        self, index: int, match: Match, seats: list[MatchSeat]
    ) -> list[int | None]:
        """The seeds the series' built-in bots play ``match`` with: its next one."""
        bases = self._bot_seeds.setdefault(index, _bot_seeds(match, seats))
        series = self._series.get(index)
        number = 1 if series is None else series.played + 1
        return [None if base is None else base + number - 1 for base in bases]

    def _skip(self, index: int) -> None:
        if index in self._series:
            self._series[index].skip()

    def _referee(
        self, index: int, match: Match, seats: list[MatchSeat], writer: MatchEventWriter
    ) -> MatchResult:
        series = self._series.get(index)
        if series is None:
            series = Series(
                self._launchers(seats, self._lengths[index], self._bot_seeds.get(index)),
                matches=self._lengths[index],
                cpu=_match_cpu(),
            )
            self._series[index] = series
        game = get_game(match.game)
        with writer:
            return series.play(
                game,
                game.new_match(match.seed, match.options),
                limits=self._limits,
                emit=writer.emit,
                on_idle=writer.idle,
            )

    def _launchers(
        self, seats: list[MatchSeat], matches: int, bot_seeds: list[int | None] | None
    ) -> list[BotLauncher]:
        cpu = self._overrides.get("cpu_seconds", settings.BAIZE_SANDBOX_LIMITS["cpu_seconds"])
        overrides = {**self._overrides, "cpu_seconds": cpu * matches}
        seeds = bot_seeds or [None, None]
        return [
            launcher_for(seat.version, bot_seed=seed, **overrides)
            for seat, seed in zip(seats, seeds, strict=True)
        ]

    def close(self) -> None:
        for series in self._series.values():
            series.close()

    def __enter__(self) -> MatchSeries:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _series_plan(match_ids: Sequence[int]) -> tuple[dict[int, int], list[int]]:
    """Which series plays each match (its index), and how many matches each series plays.

    A match joins the first series of its seat arrangement (the versions in seats 0 and 1)
    that has not played its deal (game and seed); a series never plays one deal twice, so
    no process sees a deal from both seats, even where one version plays both.
    """
    rows = Match.objects.filter(id__in=match_ids).values_list("id", "game", "seed")
    deals = {match_id: (game, seed) for match_id, game, seed in rows}
    arrangement: dict[int, list[int]] = {}
    for match_id, version_id in (
        MatchSeat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "seat")
        .values_list("match_id", "version_id")
    ):
        arrangement.setdefault(match_id, []).append(version_id)
    series_of: list[tuple[tuple[int, ...], set[tuple[str, int]]]] = []
    place: dict[int, int] = {}
    lengths: list[int] = []
    for match_id in match_ids:
        if match_id not in deals:
            raise ValueError(f"match {match_id} does not exist")
        versions, deal = tuple(arrangement.get(match_id, ())), deals[match_id]
        index = next(
            (i for i, (v, seen) in enumerate(series_of) if v == versions and deal not in seen),
            None,
        )
        if index is None:
            index = len(series_of)
            series_of.append((versions, set()))
            lengths.append(0)
        series_of[index][1].add(deal)
        lengths[index] += 1
        place[match_id] = index
    return place, lengths


def _claim_and_play(
    match_id: int,
    referee: Callable[[Match, list[MatchSeat], MatchEventWriter], MatchResult],
    skipped: Callable[[], None] | None = None,
    bot_seeds: Callable[[Match, list[MatchSeat]], list[int | None]] = _bot_seeds,
) -> MatchResult | None:
    claimed = _claim(match_id, bot_seeds)
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


def _claim(
    match_id: int, bot_seeds: Callable[[Match, list[MatchSeat]], list[int | None]]
) -> tuple[Match, list[MatchSeat], MatchEventWriter] | None:
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
    seeds = bot_seeds(match, seats)
    players = [_player(seat, seed) for seat, seed in zip(seats, seeds, strict=True)]
    try:
        writer = match_event_writer(match=match, players=players, claim_for=_worker_identity())
    except MatchNotPending:
        return None
    return match, seats, writer


def _worker_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _player(seat: MatchSeat, bot_seed: int | None) -> dict[str, Any]:
    version = seat.version
    player = {
        "seat": seat.seat,
        "bot": str(version.bot),
        "version_id": version.pk,
        "content_hash": version.content_hash,
        "runtime": version.runtime,
        # What it was built with, or what runs it on this worker: a match is reproducible to
        # the toolchain.
        "toolchain": version_toolchain(version),
    }
    if bot_seed is not None:
        # A built-in bot's random generator: with it, its every choice is reproducible.
        player["bot_seed"] = bot_seed
    return player


def _match_cpu() -> int | None:
    if not settings.BAIZE_PIN_MATCHES:
        return None
    allowed = sorted(os.sched_getaffinity(0))
    # Spread concurrent worker processes over the CPUs: one match, one CPU.
    return allowed[os.getpid() % len(allowed)]
