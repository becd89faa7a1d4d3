"""The set player: a pairing's duplicate sets, played under the sealing rule. The one place a
set is played: by a worker's match task (``matches.play``), by the upload check
(``bots.services.check``), at home (``ladder.home``) and by the benchmark.

A duplicate set is one deal played twice with the seats swapped, so that luck cancels and
the better bot wins. That holds only if nothing of the first seating reaches its twin. The
**sealing rule**: every process that played a deal is gone (killed, reaped, its sandbox slot
emptied) before any process of either bot sees that deal's twin. A kernel object a process
held (a lock, a watch, a queue) dies with it; what outlives it is the page cache, which the
sandbox keeps small and warm (``docs/sandbox.md``, "What a seating can leave behind").

So the sets are played in runs of at most ``series_length``: the run's first seatings, one
series (``arena.series``: one process per bot, kept between matches where the bot plays
series), then both processes ended, then the run's second seatings as a fresh series. A
series pays off as before: a run of N sets starts at most four processes, not 4N.

Fair play is the referee's, for every match of every caller alike (``arena.referee``): only
the bot to move runs, a sandboxed bot is charged its own CPU time, the whole match is
capped by ``limits.match_seconds``, and ``cpu`` pins the referee and its bots to one CPU.
Pure Python, no Django: the callers store the matches, each its own way (``MatchTable``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from games.rules import Game

from .referee import Emit, Limits, MatchResult, Player
from .series import Series


class Seating(enum.IntEnum):
    """Who sits where in a set's match: ``FIRST`` puts the pairing's first player in seat 0,
    ``SWAPPED`` the second."""

    FIRST = 0
    SWAPPED = 1


@dataclass(frozen=True)
class PlannedMatch:
    """One match of a duplicate set: the set's number (from 1), its seating and its deal."""

    number: int
    seating: Seating
    seed: int
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The caller's name for the match (a match id), handed back with its result.
    key: Hashable = None


@dataclass(frozen=True)
class PlayedMatch:
    """A match of the plan and its result; ``None`` where the table did not play it."""

    match: PlannedMatch
    result: MatchResult | None
    #: Whether each seat's bot, in its current process's first ``ready``, said it plays
    #: series (a built-in bot played in this process: always).
    plays_series: tuple[bool, bool] = (False, False)


#: Referees the table's match: called with where its events go and what to call while a bot
#: thinks (``arena.referee.referee_match``'s ``emit`` and ``on_idle``).
MatchReferee = Callable[[Emit, Callable[[], None] | None], MatchResult]


class MatchTable(Protocol):
    """The caller's way of playing one match and storing it."""

    def play(self, match: PlannedMatch, position: int, referee: MatchReferee) -> MatchResult | None:
        """Play ``match``, the ``position``-th (from 1) of its series, by calling
        ``referee``, and store it; ``None`` to leave it unplayed (another worker has it).
        An exception ends the series: its processes are ended, and it propagates."""


class UnstoredTable:
    """Plays every match and stores nothing: the check's and home's table."""

    def play(self, match: PlannedMatch, position: int, referee: MatchReferee) -> MatchResult:
        return referee(_ignore, None)


#: The players of a series, in seat order, from the matches it will play (one seating's).
SeatedPlayers = Callable[[Sequence[PlannedMatch]], tuple[Player, Player]]


def seated(first: Player, second: Player) -> SeatedPlayers:
    """The same two players for every series: ``first`` in seat 0 of the first seatings."""

    def players(matches: Sequence[PlannedMatch]) -> tuple[Player, Player]:
        return (first, second) if matches[0].seating is Seating.FIRST else (second, first)

    return players


def duplicate_sets(
    seeds: Sequence[int], options: Mapping[str, Any] | None = None, *, first_number: int = 1
) -> list[PlannedMatch]:
    """Both seatings of one set per seed, numbered from ``first_number``."""
    return [
        PlannedMatch(number, seating, seed, dict(options or {}))
        for number, seed in enumerate(seeds, start=first_number)
        for seating in Seating
    ]


def sets_play(
    *,
    game: Game,
    matches: Sequence[PlannedMatch],
    players: SeatedPlayers,
    limits: Limits,
    series_length: int,
    table: MatchTable | None = None,
    cpu: int | None = None,
) -> Iterator[PlayedMatch]:
    """Play ``matches`` (any of a pairing's sets' seatings) under the sealing rule, yielding
    each as it ends, in the order played: run by run (``series_length`` sets each, in set
    order), the run's first seatings, then its second seatings. Closing the iterator ends the
    series under way (its processes ended); the matches not reached are not played."""
    if series_length < 1:
        raise ValueError(f"a series plays at least one match, got {series_length}")
    for run in _runs(matches, series_length):
        for seating in Seating:
            seated_matches = [match for match in run if match.seating is seating]
            if seated_matches:
                yield from _series_play(game, seated_matches, players, limits, table, cpu)


def _runs(matches: Sequence[PlannedMatch], series_length: int) -> Iterator[list[PlannedMatch]]:
    """The matches in runs of at most ``series_length`` sets, in set order."""
    numbers = sorted({match.number for match in matches})
    for start in range(0, len(numbers), series_length):
        sets = set(numbers[start : start + series_length])
        yield sorted(
            (match for match in matches if match.number in sets),
            key=lambda match: (match.number, match.seating),
        )


def _series_play(
    game: Game,
    matches: list[PlannedMatch],
    players: SeatedPlayers,
    limits: Limits,
    table: MatchTable | None,
    cpu: int | None,
) -> Iterator[PlayedMatch]:
    """One seating of a run: one series, ended (every process killed and reaped) on leaving."""
    table = table or UnstoredTable()
    with Series(players(matches), matches=len(matches), cpu=cpu) as series:
        for match in matches:
            position = series.played + 1

            def referee(emit: Emit, on_idle: Callable[[], None] | None) -> MatchResult:
                state = game.new_match(match.seed, match.options)  # noqa: B023 - called at once
                return series.play(game, state, limits=limits, emit=emit, on_idle=on_idle)

            result = table.play(match, position, referee)
            if series.played < position:
                series.skip()  # not refereed here: the next match keeps its place
            yield PlayedMatch(match, result, (series.plays_series(0), series.plays_series(1)))


def _ignore(kind: str, payload: dict[str, Any]) -> None:
    """An unstored match's events go nowhere."""
