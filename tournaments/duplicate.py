"""Duplicate sets: the unit a tournament pairs, and how their results are read (pure).

A *duplicate set* is two matches on one seed with the seats swapped, so both entrants play
the same cards from both sides; a pairing plays one or more sets. Rules, in order:

- **A set's result.** The entrant who won more of the set's matches wins the set; if they
  won as many (one each), the entrant with more match points over the set's matches wins
  it; if those are equal too, the set is drawn.
- **A pairing in a round robin or Swiss** is over when its planned sets are played; each
  set counts on its own in the standings (win 1, draw 1/2).
- **A pairing in an elimination bracket** is won by the entrant with more sets won; if
  level, by more match points over all its sets; if still level, another set is played
  (on a fresh seed), at most ``MAX_EXTRA_SETS`` times, after which the better seed goes
  through.

Deal seeds are derived from the tournament's secret and the set's key, so the
published secret fixes (and lets anyone check) every deal of the tournament.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.rules.decks import MAX_SEED

#: Extra sets an elimination pairing may play to break a tie before the better seed goes on.
MAX_EXTRA_SETS = 3


class SetOutcome(enum.StrEnum):
    FIRST = "first"
    SECOND = "second"
    DRAWN = "drawn"


def set_seed(tournament_secret: str, set_key: str) -> int:
    """The deal seed of the set ``set_key`` (e.g. ``"W1-3/2"``) of a tournament."""
    digest = hashlib.sha256(f"baize-set:{tournament_secret}:{set_key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED


def secret_commitment(tournament_secret: str) -> str:
    """The SHA-256 (hex) of the tournament's secret, published before play."""
    return hashlib.sha256(tournament_secret.encode()).hexdigest()


@dataclass(frozen=True)
class SetMatch:
    """One finished match of a set: the seat the pairing's first entrant took, the result."""

    first_seat: int
    winner: int
    scores: tuple[int, int]


@dataclass(frozen=True)
class SetResult:
    first_wins: int
    second_wins: int
    first_points: int
    second_points: int

    @property
    def outcome(self) -> SetOutcome:
        first = (self.first_wins, self.first_points)
        second = (self.second_wins, self.second_points)
        if first == second:
            return SetOutcome.DRAWN
        return SetOutcome.FIRST if first > second else SetOutcome.SECOND

    def set_points(self) -> tuple[float, float]:
        """Standings points of the first and second entrant: 1 for a win, 1/2 for a draw."""
        return {
            SetOutcome.FIRST: (1.0, 0.0),
            SetOutcome.SECOND: (0.0, 1.0),
            SetOutcome.DRAWN: (0.5, 0.5),
        }[self.outcome]


class SideOutcome(enum.StrEnum):
    """A set's outcome for one of its two entrants, as the API and the pages say it."""

    WON = "won"
    DRAWN = "drawn"
    LOST = "lost"


@dataclass(frozen=True)
class SetSide:
    """A set's result seen from one entrant's side."""

    outcome: SideOutcome
    matches_won: int
    matches_lost: int
    points: int
    opponent_points: int


def set_side(result: SetResult, *, first: bool) -> SetSide:
    """``result`` from the side of its first entrant (``first``) or its second."""
    won = {SetOutcome.FIRST: first, SetOutcome.SECOND: not first}.get(result.outcome)
    outcome = {True: SideOutcome.WON, False: SideOutcome.LOST, None: SideOutcome.DRAWN}[won]
    wins = (result.first_wins, result.second_wins)
    points = (result.first_points, result.second_points)
    if not first:
        wins, points = wins[::-1], points[::-1]
    return SetSide(outcome, wins[0], wins[1], points[0], points[1])


def set_result(matches: Iterable[SetMatch]) -> SetResult:
    first_wins = second_wins = first_points = second_points = 0
    for match in matches:
        second_seat = 1 - match.first_seat
        first_points += match.scores[match.first_seat]
        second_points += match.scores[second_seat]
        first_wins += match.winner == match.first_seat
        second_wins += match.winner == second_seat
    return SetResult(first_wins, second_wins, first_points, second_points)


class PairingWinner(enum.StrEnum):
    FIRST = "first"
    SECOND = "second"
    NONE = "none"  # a round-robin or Swiss pairing: only its sets count


@dataclass(frozen=True)
class PairingDecision:
    finished: bool
    winner: PairingWinner = PairingWinner.NONE
    another_set: bool = False


def pairing_decision(
    sets: Sequence[SetResult], *, planned: int, elimination: bool, first_is_better_seed: bool
) -> PairingDecision:
    """Whether a pairing whose finished sets are ``sets`` is over, and who won it."""
    if len(sets) < planned:
        return PairingDecision(finished=False)
    if not elimination:
        return PairingDecision(finished=True)
    first = (_sets_won(sets, SetOutcome.FIRST), sum(s.first_points for s in sets))
    second = (_sets_won(sets, SetOutcome.SECOND), sum(s.second_points for s in sets))
    if first == second and len(sets) < planned + MAX_EXTRA_SETS:
        return PairingDecision(finished=False, another_set=True)
    first_goes_on = first > second or (first == second and first_is_better_seed)
    winner = PairingWinner.FIRST if first_goes_on else PairingWinner.SECOND
    return PairingDecision(finished=True, winner=winner)


def _sets_won(sets: Sequence[SetResult], outcome: SetOutcome) -> int:
    return sum(1 for result in sets if result.outcome is outcome)
