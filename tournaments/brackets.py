"""Single and double elimination brackets as pure data (no Django, no I/O).

A bracket is built from the number of entrants alone: ``slots`` is the next power of two,
seed 1 is the best entrant (the caller seeds by rating), and the seeds past the field are
byes. Seeds are placed in the standard order (1 v 16, 8 v 9, 4 v 13, ...), so the byes go
to the top seeds, no first-round game has two byes, and seeds 1 and 2 can only meet in the
final. A game whose other side is a bye is a walkover: nobody plays it.

Double elimination: the loser of a winners' bracket game drops into the losers' bracket;
a loss there eliminates. The losers of winners' round ``r + 1`` meet the survivors of the
losers' bracket in reverse order, which keeps early rematches rare. The grand final pits
the winners' champion against the losers' champion; if the losers' champion wins it, both
have lost once and the final is played again (the *reset*, game ``GF2``).

``bracket_progress`` folds the winners of the games played so far over the bracket: which
games are ready to play, who is out at which stage, the champion and the final places.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


class Side(enum.StrEnum):
    WINNERS = "winners"
    LOSERS = "losers"
    FINAL = "final"


@dataclass(frozen=True)
class Seed:
    number: int


@dataclass(frozen=True)
class WinnerOf:
    game: str


@dataclass(frozen=True)
class LoserOf:
    game: str


Source = Seed | WinnerOf | LoserOf


@dataclass(frozen=True)
class BracketGame:
    key: str
    side: Side
    round: int
    sources: tuple[Source, Source]
    #: The loser of this game is out at this stage (later stages rank higher); None when
    #: the loser drops into the losers' bracket instead.
    elimination_stage: int | None
    #: For the grand-final reset: the game it repeats, played only if its second side won.
    reset_of: str | None = None


@dataclass(frozen=True)
class Bracket:
    entrants: int
    slots: int
    games: tuple[BracketGame, ...]

    def game(self, key: str) -> BracketGame:
        for game in self.games:
            if game.key == key:
                return game
        raise KeyError(f"no game {key!r} in this bracket")


def seed_order(slots: int) -> list[int]:
    """Seeds in bracket order for a power of two: first-round games are consecutive pairs."""
    if slots < 2 or slots & (slots - 1):
        raise ValueError(f"a bracket has a power of two of slots, got {slots}")
    order = [1, 2]
    while len(order) < slots:
        size = 2 * len(order)
        order = [seed for top in order for seed in (top, size + 1 - top)]
    return order


def _slots_for(entrants: int) -> tuple[int, int]:
    if entrants < 2:
        raise ValueError(f"an elimination bracket needs at least two entrants, got {entrants}")
    rounds = (entrants - 1).bit_length()
    return 2**rounds, rounds


def single_elimination(entrants: int) -> Bracket:
    """A knock-out bracket: the loser of any game is out."""
    slots, rounds = _slots_for(entrants)
    games = _winners_bracket(slots, rounds, eliminating=True)
    return Bracket(entrants, slots, tuple(games))


def double_elimination(entrants: int) -> Bracket:
    """Winners' and losers' brackets, the grand final and its reset (see the module doc)."""
    slots, rounds = _slots_for(entrants)
    games = _winners_bracket(slots, rounds, eliminating=False)
    losers = _losers_bracket(slots, rounds)
    games += losers
    losers_champion = WinnerOf(losers[-1].key) if losers else LoserOf(games[-1].key)
    final_sources = (WinnerOf(f"W{rounds}-1"), losers_champion)
    final_stage = 2 * rounds - 1
    games.append(BracketGame("GF", Side.FINAL, 1, final_sources, final_stage))
    games.append(BracketGame("GF2", Side.FINAL, 2, final_sources, final_stage, reset_of="GF"))
    return Bracket(entrants, slots, tuple(games))


def _winners_bracket(slots: int, rounds: int, *, eliminating: bool) -> list[BracketGame]:
    order = seed_order(slots)
    games = [
        BracketGame(
            f"W1-{i + 1}",
            Side.WINNERS,
            1,
            (Seed(order[2 * i]), Seed(order[2 * i + 1])),
            1 if eliminating else None,
        )
        for i in range(slots // 2)
    ]
    for rnd in range(2, rounds + 1):
        games += [
            BracketGame(
                f"W{rnd}-{i + 1}",
                Side.WINNERS,
                rnd,
                (WinnerOf(f"W{rnd - 1}-{2 * i + 1}"), WinnerOf(f"W{rnd - 1}-{2 * i + 2}")),
                rnd if eliminating else None,
            )
            for i in range(slots >> rnd)
        ]
    return games


def _losers_bracket(slots: int, rounds: int) -> list[BracketGame]:
    """Rounds 1 .. 2(rounds-1): odd rounds pair survivors, even rounds take new drop-downs."""
    games: list[BracketGame] = []
    for rnd in range(1, 2 * rounds - 1):
        count = slots >> ((rnd + 3) // 2)
        for i in range(count):
            if rnd == 1:
                sources = (LoserOf(f"W1-{2 * i + 1}"), LoserOf(f"W1-{2 * i + 2}"))
            elif rnd % 2 == 0:
                dropping = f"W{rnd // 2 + 1}-{count - i}"
                sources = (WinnerOf(f"L{rnd - 1}-{i + 1}"), LoserOf(dropping))
            else:
                sources = (WinnerOf(f"L{rnd - 1}-{2 * i + 1}"), WinnerOf(f"L{rnd - 1}-{2 * i + 2}"))
            games.append(BracketGame(f"L{rnd}-{i + 1}", Side.LOSERS, rnd, sources, rnd))
    return games


class GameStatus(enum.StrEnum):
    WAITING = "waiting"  # a side is not known yet
    READY = "ready"  # both sides known: to be played
    PLAYED = "played"
    WALKOVER = "walkover"  # one side (or both) is a bye: decided without play
    SKIPPED = "skipped"  # the grand-final reset, not needed


@dataclass(frozen=True)
class GameState(Generic[T]):
    key: str
    status: GameStatus
    first: T | None = None
    second: T | None = None
    winner: T | None = None
    loser: T | None = None

    @property
    def sides(self) -> tuple[T | None, T | None]:
        return (self.first, self.second)

    @property
    def decided(self) -> bool:
        return self.status in (GameStatus.PLAYED, GameStatus.WALKOVER, GameStatus.SKIPPED)


@dataclass
class BracketProgress(Generic[T]):
    bracket: Bracket
    games: dict[str, GameState[T]] = field(default_factory=dict)
    #: Eliminated entrant -> the stage at which it went out.
    eliminated: dict[T, int] = field(default_factory=dict)
    champion: T | None = None

    @property
    def ready(self) -> list[GameState[T]]:
        return [game for game in self.games.values() if game.status is GameStatus.READY]

    @property
    def finished(self) -> bool:
        return self.champion is not None

    def placements(self, entrants: Sequence[T]) -> dict[T, int | None]:
        """Each entrant's final place, or None while it can still change.

        A place is 1 + the entrants out at a later stage or still in, once every game of
        the entrant's stage is decided; entrants out at the same stage share a place (both
        semi-final losers are 3rd).
        """
        places: dict[T, int | None] = {}
        for entrant in entrants:
            stage = self.eliminated.get(entrant)
            if entrant == self.champion:
                places[entrant] = 1
            elif stage is None or not self._stage_decided(stage):
                places[entrant] = None
            else:
                above = sum(1 for e in entrants if self.eliminated.get(e, stage + 1) > stage)
                places[entrant] = 1 + above
        return places

    def _stage_decided(self, stage: int) -> bool:
        return all(
            self.games[game.key].decided
            for game in self.bracket.games
            if game.elimination_stage is not None and game.elimination_stage <= stage
        )


def bracket_progress(
    bracket: Bracket, seeded: Sequence[T], winners: Mapping[str, T]
) -> BracketProgress[T]:
    """Fold the results so far over ``bracket``; ``seeded[0]`` is seed 1.

    ``winners`` maps the key of each game played to its winner, who must be one of its two
    sides. Walkovers and the skipped reset are decided here, not by the caller.
    """
    if len(seeded) != bracket.entrants:
        raise ValueError(f"the bracket has {bracket.entrants} entrants, {len(seeded)} given")
    progress: BracketProgress[T] = BracketProgress(bracket)
    for game in bracket.games:
        state = _game_state(game, progress, seeded, winners)
        progress.games[game.key] = state
        _record_elimination(game, state, progress)
    return progress


_UNKNOWN = object()


def _game_state(
    game: BracketGame, progress: BracketProgress[T], seeded: Sequence[T], winners: Mapping
) -> GameState[T]:
    first, second = (_resolve(source, progress, seeded) for source in game.sources)
    if first is _UNKNOWN or second is _UNKNOWN:
        return GameState(game.key, GameStatus.WAITING)
    if game.reset_of is not None:
        repeated = progress.games[game.reset_of]
        if not repeated.decided:
            return GameState(game.key, GameStatus.WAITING, first, second)
        if repeated.winner == repeated.first:
            return GameState(game.key, GameStatus.SKIPPED, first, second)
    if first is None or second is None:
        winner = second if first is None else first
        return GameState(game.key, GameStatus.WALKOVER, first, second, winner, None)
    if game.key not in winners:
        return GameState(game.key, GameStatus.READY, first, second)
    winner = winners[game.key]
    if winner not in (first, second):
        raise ValueError(f"game {game.key}: {winner!r} did not play it")
    loser = second if winner == first else first
    return GameState(game.key, GameStatus.PLAYED, first, second, winner, loser)


def _resolve(source: Source, progress: BracketProgress[T], seeded: Sequence[T]) -> object:
    """The entrant a source names, None for a bye, ``_UNKNOWN`` while undecided."""
    if isinstance(source, Seed):
        return seeded[source.number - 1] if source.number <= len(seeded) else None
    state = progress.games[source.game]
    if state.status is GameStatus.SKIPPED or not state.decided:
        return _UNKNOWN
    return state.winner if isinstance(source, WinnerOf) else state.loser


def _record_elimination(
    game: BracketGame, state: GameState[T], progress: BracketProgress[T]
) -> None:
    if not state.decided:
        return
    if game.reset_of is not None:
        repeated = progress.games[game.reset_of]
        if state.status is GameStatus.SKIPPED:
            progress.eliminated[repeated.loser] = game.elimination_stage
            progress.champion = repeated.winner
        else:
            progress.eliminated[state.loser] = game.elimination_stage
            progress.champion = state.winner
        return
    is_final = game is progress.bracket.games[-1]
    followed_by_reset = progress.bracket.games[-1].reset_of == game.key
    if state.loser is not None and game.elimination_stage is not None and not followed_by_reset:
        progress.eliminated[state.loser] = game.elimination_stage
    if is_final:
        progress.champion = state.winner
