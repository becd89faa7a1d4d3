"""Challenges and version tests at home: duplicate sets between two local bots, played as a
worker plays a challenge's or a version test's sets and read as the server reads them.

A set is one deal played twice with the seats swapped (``tournaments.duplicate``): set
``k`` deals from seed ``first_seed + k - 1``, first with the first bot in seat 0, then with
the seats swapped, and its result is ``set_result``'s, read from the first bot's side (the
challenger's, the candidate's). They are played by the function a worker plays them with
(``arena.set_player``): runs of up to ``series_length`` sets, the run's first seatings one
series, its processes ended, then its second seatings a fresh one. The sets' record gives
the score with its 95% Wilson interval (``tournaments.sprt.score_interval``), and a version
test stops as soon as the server's sequential test (``tournaments.sprt.sprt_state``)
decides, or at its cap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from arena.referee import Limits, MatchResult, Player
from arena.set_player import PlannedMatch, Seating, duplicate_sets, seated, sets_play
from games.rules import Game
from tournaments.duplicate import SetMatch, SetOutcome, SetResult, set_result
from tournaments.sprt import (
    SprtParameters,
    SprtState,
    Verdict,
    score_interval,
    set_score,
    sprt_state,
)


@dataclass(frozen=True)
class HomeSet:
    """One played set: its number (from 1), its deal's seed and its two matches."""

    number: int
    seed: int
    #: The first bot in seat 0, then in seat 1.
    matches: tuple[MatchResult, MatchResult]

    @property
    def result(self) -> SetResult:
        """The set as the server reads it, the first bot as its first entrant."""
        return set_result(
            SetMatch(first_seat, match.winner, match.scores)
            for first_seat, match in enumerate(self.matches)
        )


@dataclass(frozen=True)
class SetsRecord:
    """Sets won, drawn and lost by the first bot."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, outcome: SetOutcome) -> SetsRecord:
        return SetsRecord(
            self.wins + (outcome is SetOutcome.FIRST),
            self.draws + (outcome is SetOutcome.DRAWN),
            self.losses + (outcome is SetOutcome.SECOND),
        )

    @property
    def sets(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """The first bot's mean set score (a draw scores 1/2), 0.5 before any set."""
        score = set_score(self.wins, self.draws, self.losses)
        return 0.5 if score is None else score

    @property
    def interval(self) -> tuple[float, float]:
        """The score's 95% Wilson interval, as a challenge's (``score_interval``)."""
        return score_interval(self.wins, self.draws, self.losses)


#: Called after each set with the set and the record so far.
OnSet = Callable[[HomeSet, SetsRecord], None]


def home_sets_play(
    *,
    game: Game,
    players: tuple[Player, Player],
    sets: int,
    first_seed: int,
    options: Mapping[str, Any],
    limits: Limits,
    series_length: int,
    cpu: int | None = None,
    on_set: OnSet | None = None,
    stop: Callable[[SetsRecord], bool] | None = None,
) -> SetsRecord:
    """Play up to ``sets`` duplicate sets of ``players[0]`` against ``players[1]``, pinned to
    ``cpu``, stopping early once ``stop(record)`` is true; the first bot's record.
    ``ValueError`` names a bad option before any bot starts."""
    if sets < 1:
        raise ValueError(f"at least one set is played, got {sets}")
    game.new_match(first_seed, options)  # refuses bad options before any bot starts
    record = SetsRecord()
    plan = duplicate_sets(range(first_seed, first_seed + sets), options)
    with closing(_sets(game, players, plan, limits, series_length, cpu)) as played:
        for home_set in played:
            record = record.add(home_set.result.outcome)
            if on_set is not None:
                on_set(home_set, record)
            if stop is not None and stop(record):
                break
    return record


def _sets(
    game: Game,
    players: tuple[Player, Player],
    plan: list[PlannedMatch],
    limits: Limits,
    series_length: int,
    cpu: int | None,
) -> Iterator[HomeSet]:
    """The sets, each once both its matches are played (``arena.set_player``: a run's first
    seatings, then its second ones); closing the generator ends the series under way."""
    first_matches: dict[int, MatchResult] = {}
    played = sets_play(
        game=game,
        matches=plan,
        players=seated(*players),
        limits=limits,
        series_length=series_length,
        cpu=cpu,
    )
    with closing(played):
        for match in played:
            number, result = match.match.number, match.result
            if match.match.seating is Seating.FIRST:
                first_matches[number] = result
            else:
                yield HomeSet(number, match.match.seed, (first_matches.pop(number), result))


def home_version_test_play(
    *,
    game: Game,
    candidate: Player,
    baseline: Player,
    parameters: SprtParameters,
    first_seed: int,
    options: Mapping[str, Any],
    limits: Limits,
    series_length: int,
    cpu: int | None = None,
    on_set: OnSet | None = None,
) -> SprtState:
    """The server's sequential test of ``candidate`` against ``baseline`` (its sets from the
    candidate's side), judged after every set: played until it decides or reaches
    ``parameters.max_sets``."""

    def decided(record: SetsRecord) -> bool:
        state = sprt_state(record.wins, record.draws, record.losses, parameters)
        return state.verdict is not Verdict.PENDING

    record = home_sets_play(
        game=game,
        players=(candidate, baseline),
        sets=parameters.max_sets,
        first_seed=first_seed,
        options=options,
        limits=limits,
        series_length=series_length,
        cpu=cpu,
        on_set=on_set,
        stop=decided,
    )
    return sprt_state(record.wins, record.draws, record.losses, parameters)
