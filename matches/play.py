"""Playing a match: claim it, run its bots through the referee, log it as it goes.

Every write of the match's row goes through ``matches.services``; this module only ties
the referee (``arena.referee``) and the bots' launchers to them.
"""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from arena.referee import Limits, MatchResult, referee_match
from arena.runner import BotLauncher
from arena.set_player import MatchReferee, PlannedMatch, Seating, sets_play
from bots.services.launch import (
    launcher_for,
    match_cpu,
    referee_limits,
    version_code_prepare,
    version_toolchain,
)
from games.events import canonical_json
from games.rules import Game, get_game

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
        return referee_limits(
            decision_seconds=self.decision_seconds, time_bank_seconds=self.time_bank_seconds
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
                cpu=match_cpu(),
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


def matches_play_as_sets(
    *,
    match_ids: Sequence[int],
    limits: MatchLimits = MatchLimits(),
    playing: Callable[[int], bool] = lambda match_id: True,
) -> Iterator[int]:
    """Play a task's matches, the sets of one pairing (``tournaments.series``), as
    ``match_play`` plays one, through the set player (``arena.set_player``): runs of whole
    sets, each run's first seatings one series, its processes ended, then its second
    seatings a fresh one. Yields each match id once it is done with, in the order played.

    ``playing(match_id)``, asked just before a match, says whether it is still to be played
    here (its tournament may have been cancelled meanwhile). Each match is claimed only as it
    starts, so the matches a dead worker never reached stay pending for another (each is
    still logged exactly once). The sandbox's CPU limit, a backstop per process, is the
    per-match one times the matches its series plays. ``CodeUnavailable`` (the matches not
    reached still pending) if a bot's code is in no store this worker can read.
    """
    table = _StoredTable(limits, playing)
    played = sets_play(
        game=_plan_game(match_ids),
        matches=_set_plan(match_ids),
        players=table.players,
        limits=limits.referee_limits(),
        series_length=settings.BAIZE_SERIES_MAX_MATCHES,
        table=table,
        cpu=match_cpu(),
    )
    with closing(played):
        for match in played:
            yield match.match.key


class _StoredTable:
    """The set player's table on a worker: each match claimed, logged and stored
    (``matches.services``), its built-in bots seeded as a series' (``arena/builtin/main.py``:
    match N of a series plays with its first match's seed + N - 1)."""

    def __init__(self, limits: MatchLimits, playing: Callable[[int], bool]) -> None:
        self._overrides = dict(limits.sandbox_overrides)
        self._playing = playing
        #: The current series' built-in bots' seeds, from its first match.
        self._bot_seeds: list[int | None] = [None, None]

    def players(self, matches: Sequence[PlannedMatch]) -> tuple[BotLauncher, BotLauncher]:
        match = Match.objects.get(id=matches[0].key)
        seats = list(match.seats.select_related("version__bot").order_by("seat"))
        self._bot_seeds = _bot_seeds(match, seats)
        cpu = self._overrides.get("cpu_seconds", settings.BAIZE_SANDBOX_LIMITS["cpu_seconds"])
        overrides = {**self._overrides, "cpu_seconds": cpu * len(matches)}
        first, second = (
            launcher_for(seat.version, bot_seed=seed, **overrides)
            for seat, seed in zip(seats, self._bot_seeds, strict=True)
        )
        return first, second

    def play(self, match: PlannedMatch, position: int, referee: MatchReferee) -> MatchResult | None:
        if not self._playing(match.key):
            return None

        def seeds(row: Match, seats: list[MatchSeat]) -> list[int | None]:
            return [None if base is None else base + position - 1 for base in self._bot_seeds]

        def play(row: Match, seats: list[MatchSeat], writer: MatchEventWriter) -> MatchResult:
            with writer:
                return referee(writer.emit, writer.idle)

        return _claim_and_play(match.key, play, bot_seeds=seeds)


def _plan_game(match_ids: Sequence[int]) -> Game:
    games = set(Match.objects.filter(id__in=match_ids).values_list("game", flat=True))
    if len(games) != 1:
        raise ValueError(f"the matches of one task are of one game, got {sorted(games)}")
    return get_game(games.pop())


def _set_plan(match_ids: Sequence[int]) -> list[PlannedMatch]:
    """The task's matches as sets: a deal (seed and options) is a set, numbered in the order
    its first match comes. A match with the first match's seating (the versions in seats 0
    and 1) is its deal's first seating, one with them swapped its second; where one version
    plays both seats, a deal's second match is its second seating. A deal met again in a
    seating it already has (a replacement beside its original) is a set of its own, so a
    series never plays one deal twice."""
    rows = {
        match_id: (seed, options)
        for match_id, seed, options in Match.objects.filter(id__in=match_ids).values_list(
            "id", "seed", "options"
        )
    }
    arrangement: dict[int, list[int]] = {}
    for match_id, version_id in (
        MatchSeat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "seat")
        .values_list("match_id", "version_id")
    ):
        arrangement.setdefault(match_id, []).append(version_id)
    plan: list[PlannedMatch] = []
    #: Each deal's latest set: its number and the seatings it has.
    sets: dict[str, tuple[int, set[Seating]]] = {}
    for match_id in match_ids:
        if match_id not in rows:
            raise ValueError(f"match {match_id} does not exist")
        seed, options = rows[match_id]
        deal = canonical_json({"seed": seed, "options": options})
        seats = arrangement[match_id]
        seating = _seating(seats, arrangement[match_ids[0]])
        number, seatings = sets.get(deal, (0, {Seating.FIRST, Seating.SWAPPED}))
        if seats == seats[::-1] and seatings == {Seating.FIRST}:
            seating = Seating.SWAPPED  # one version in both seats: its deal's second match
        if seating in seatings:
            number, seatings = max((n for n, _ in sets.values()), default=0) + 1, set()
        seatings.add(seating)
        sets[deal] = (number, seatings)
        plan.append(PlannedMatch(number, seating, seed, options, match_id))
    return plan


def _seating(versions: list[int], first: list[int]) -> Seating:
    if versions == first:
        return Seating.FIRST
    if versions == first[::-1]:
        return Seating.SWAPPED
    raise ValueError(f"a task plays one pairing: seats {versions} are not those of {first}")


def _claim_and_play(
    match_id: int,
    referee: Callable[[Match, list[MatchSeat], MatchEventWriter], MatchResult],
    bot_seeds: Callable[[Match, list[MatchSeat]], list[int | None]] = _bot_seeds,
) -> MatchResult | None:
    claimed = _claim(match_id, bot_seeds)
    if claimed is None:
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
    if version.builtin:
        # Which built-in strategy played: ``play --replay`` seeds it again by itself.
        player["builtin"] = version.builtin
    if bot_seed is not None:
        # A built-in bot's random generator: with it, its every choice is reproducible.
        player["bot_seed"] = bot_seed
    return player
