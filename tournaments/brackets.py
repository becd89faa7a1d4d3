"""Single and double elimination brackets as pure data (no Django, no I/O).

A bracket is built from the number of entrants alone: ``slots`` is the next power of two,
seed 1 is the best entrant (the caller seeds by rating), and the seeds past the field are
byes. Seeds are placed in the standard order (1 v 16, 8 v 9, 4 v 13, ...), so the byes go
to the top seeds, no first-round pairing has two byes, and seeds 1 and 2 can only meet in the
final. A pairing whose other side is a bye is a walkover: nobody plays it.

Double elimination: the loser of a winners' bracket pairing drops into the losers' bracket;
a loss there eliminates. The losers of winners' round ``r + 1`` meet the survivors of the
losers' bracket in reverse order, which keeps early rematches rare. The grand final pits
the winners' champion against the losers' champion; if the losers' champion wins it, both
have lost once and the final is played again (the *reset*, pairing ``GF2``).

``bracket_progress`` folds the winners of the pairings played so far over the bracket: which
pairings are ready to play, who is out at which stage, the champion and the final places.
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
    pairing: str


@dataclass(frozen=True)
class LoserOf:
    pairing: str


Source = Seed | WinnerOf | LoserOf


@dataclass(frozen=True)
class BracketPairing:
    """One pairing of the bracket; its ``key`` (``W2-1``) is also the key of the ``Pairing``
    row that plays it once both sides are known (a walkover has none)."""

    key: str
    side: Side
    round: int
    sources: tuple[Source, Source]
    #: The loser of this pairing is out at this stage (later stages rank higher); None when
    #: the loser drops into the losers' bracket instead.
    elimination_stage: int | None
    #: For the grand-final reset: the pairing it repeats, played only if its second side won.
    reset_of: str | None = None


@dataclass(frozen=True)
class Bracket:
    entrants: int
    slots: int
    pairings: tuple[BracketPairing, ...]

    def pairing(self, key: str) -> BracketPairing:
        for pairing in self.pairings:
            if pairing.key == key:
                return pairing
        raise KeyError(f"no pairing {key!r} in this bracket")


def seed_order(slots: int) -> list[int]:
    """Seeds in bracket order for a power of two: first-round pairings are consecutive pairs."""
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
    """A knock-out bracket: the loser of any pairing is out."""
    slots, rounds = _slots_for(entrants)
    pairings = _winners_bracket(slots, rounds, eliminating=True)
    return Bracket(entrants, slots, tuple(pairings))


def double_elimination(entrants: int) -> Bracket:
    """Winners' and losers' brackets, the grand final and its reset (see the module doc)."""
    slots, rounds = _slots_for(entrants)
    pairings = _winners_bracket(slots, rounds, eliminating=False)
    losers = _losers_bracket(slots, rounds)
    pairings += losers
    losers_champion = WinnerOf(losers[-1].key) if losers else LoserOf(pairings[-1].key)
    final_sources = (WinnerOf(f"W{rounds}-1"), losers_champion)
    final_stage = 2 * rounds - 1
    pairings.append(BracketPairing("GF", Side.FINAL, 1, final_sources, final_stage))
    pairings.append(BracketPairing("GF2", Side.FINAL, 2, final_sources, final_stage, reset_of="GF"))
    return Bracket(entrants, slots, tuple(pairings))


def _winners_bracket(slots: int, rounds: int, *, eliminating: bool) -> list[BracketPairing]:
    order = seed_order(slots)
    pairings = [
        BracketPairing(
            f"W1-{i + 1}",
            Side.WINNERS,
            1,
            (Seed(order[2 * i]), Seed(order[2 * i + 1])),
            1 if eliminating else None,
        )
        for i in range(slots // 2)
    ]
    for rnd in range(2, rounds + 1):
        pairings += [
            BracketPairing(
                f"W{rnd}-{i + 1}",
                Side.WINNERS,
                rnd,
                (WinnerOf(f"W{rnd - 1}-{2 * i + 1}"), WinnerOf(f"W{rnd - 1}-{2 * i + 2}")),
                rnd if eliminating else None,
            )
            for i in range(slots >> rnd)
        ]
    return pairings


def _losers_bracket(slots: int, rounds: int) -> list[BracketPairing]:
    """Rounds 1 .. 2(rounds-1): odd rounds pair survivors, even rounds take new drop-downs."""
    pairings: list[BracketPairing] = []
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
            pairings.append(BracketPairing(f"L{rnd}-{i + 1}", Side.LOSERS, rnd, sources, rnd))
    return pairings


class PairingStatus(enum.StrEnum):
    WAITING = "waiting"  # a side is not known yet
    READY = "ready"  # both sides known: to be played
    PLAYED = "played"
    WALKOVER = "walkover"  # one side (or both) is a bye: decided without play
    SKIPPED = "skipped"  # the grand-final reset, not needed


@dataclass(frozen=True)
class PairingState(Generic[T]):
    key: str
    status: PairingStatus
    first: T | None = None
    second: T | None = None
    winner: T | None = None
    loser: T | None = None

    @property
    def sides(self) -> tuple[T | None, T | None]:
        return (self.first, self.second)

    @property
    def decided(self) -> bool:
        return self.status in (PairingStatus.PLAYED, PairingStatus.WALKOVER, PairingStatus.SKIPPED)


@dataclass
class BracketProgress(Generic[T]):
    bracket: Bracket
    pairings: dict[str, PairingState[T]] = field(default_factory=dict)
    #: Eliminated entrant -> the stage at which it went out.
    eliminated: dict[T, int] = field(default_factory=dict)
    champion: T | None = None

    @property
    def ready(self) -> list[PairingState[T]]:
        return [state for state in self.pairings.values() if state.status is PairingStatus.READY]

    @property
    def finished(self) -> bool:
        return self.champion is not None

    def placements(self, entrants: Sequence[T]) -> dict[T, int | None]:
        """Each entrant's final place, or None while it can still change.

        A place is 1 + the entrants out at a later stage or still in, once every pairing of
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
            self.pairings[pairing.key].decided
            for pairing in self.bracket.pairings
            if pairing.elimination_stage is not None and pairing.elimination_stage <= stage
        )


def bracket_progress(
    bracket: Bracket, seeded: Sequence[T], winners: Mapping[str, T]
) -> BracketProgress[T]:
    """Fold the results so far over ``bracket``; ``seeded[0]`` is seed 1.

    ``winners`` maps the key of each pairing played to its winner, who must be one of its two
    sides. Walkovers and the skipped reset are decided here, not by the caller.
    """
    if len(seeded) != bracket.entrants:
        raise ValueError(f"the bracket has {bracket.entrants} entrants, {len(seeded)} given")
    progress: BracketProgress[T] = BracketProgress(bracket)
    for pairing in bracket.pairings:
        state = _pairing_state(pairing, progress, seeded, winners)
        progress.pairings[pairing.key] = state
        _record_elimination(pairing, state, progress)
    return progress


_UNKNOWN = object()


def _pairing_state(
    pairing: BracketPairing, progress: BracketProgress[T], seeded: Sequence[T], winners: Mapping
) -> PairingState[T]:
    first, second = (_resolve(source, progress, seeded) for source in pairing.sources)
    if first is _UNKNOWN or second is _UNKNOWN:
        return PairingState(pairing.key, PairingStatus.WAITING)
    if pairing.reset_of is not None:
        repeated = progress.pairings[pairing.reset_of]
        if not repeated.decided:
            return PairingState(pairing.key, PairingStatus.WAITING, first, second)
        if repeated.winner == repeated.first:
            return PairingState(pairing.key, PairingStatus.SKIPPED, first, second)
    if first is None or second is None:
        winner = second if first is None else first
        return PairingState(pairing.key, PairingStatus.WALKOVER, first, second, winner, None)
    if pairing.key not in winners:
        return PairingState(pairing.key, PairingStatus.READY, first, second)
    winner = winners[pairing.key]
    if winner not in (first, second):
        raise ValueError(f"pairing {pairing.key}: {winner!r} did not play it")
    loser = second if winner == first else first
    return PairingState(pairing.key, PairingStatus.PLAYED, first, second, winner, loser)


def _resolve(source: Source, progress: BracketProgress[T], seeded: Sequence[T]) -> object:
    """The entrant a source names, None for a bye, ``_UNKNOWN`` while undecided."""
    if isinstance(source, Seed):
        return seeded[source.number - 1] if source.number <= len(seeded) else None
    state = progress.pairings[source.pairing]
    if state.status is PairingStatus.SKIPPED or not state.decided:
        return _UNKNOWN
    return state.winner if isinstance(source, WinnerOf) else state.loser


def _record_elimination(
    pairing: BracketPairing, state: PairingState[T], progress: BracketProgress[T]
) -> None:
    if not state.decided:
        return
    if pairing.reset_of is not None:
        repeated = progress.pairings[pairing.reset_of]
        if state.status is PairingStatus.SKIPPED:
            progress.eliminated[repeated.loser] = pairing.elimination_stage
            progress.champion = repeated.winner
        else:
            progress.eliminated[state.loser] = pairing.elimination_stage
            progress.champion = state.winner
        return
    is_final = pairing is progress.bracket.pairings[-1]
    followed_by_reset = progress.bracket.pairings[-1].reset_of == pairing.key
    if state.loser is not None and pairing.elimination_stage is not None and not followed_by_reset:
        progress.eliminated[state.loser] = pairing.elimination_stage
    if is_final:
        progress.champion = state.winner
