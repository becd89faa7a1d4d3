"""Standings from duplicate-set results, with named tie-breaks (pure; no Django).

A set counts 1 point to its winner and 1/2 to each side of a drawn set (``duplicate``); a
Swiss bye counts as a pairing won: ``bye_points``, the tournament's sets per pairing, so the
entrant who sits out does not fall behind those who play. Entrants are ranked by, in order:

1. **place** (elimination brackets only): how far the entrant got; still in beats out;
2. **score**: set points;
3. the format's tie-breaks, in the order the format lists them (``formats.FORMATS``):
   - ``head_to_head``: set points scored in the sets among the entrants still level;
   - ``buchholz``: the sum of the scores of the opponents of every set played (a bye adds
     nothing), i.e. how strong the field met was;
   - ``sonneborn_berger``: the sum of the scores of the opponents beaten, plus half the
     scores of the opponents drawn with;
   - ``points_difference``: match points scored minus conceded over all sets;
   - ``points_for``: match points scored;
4. **order**: the entrant's seed (rating at the start, then entry order), so the order
   is total.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .duplicate import SetResult


class TieBreak(enum.StrEnum):
    HEAD_TO_HEAD = "head_to_head"
    BUCHHOLZ = "buchholz"
    SONNEBORN_BERGER = "sonneborn_berger"
    POINTS_DIFFERENCE = "points_difference"
    POINTS_FOR = "points_for"


#: The tie-breaks of each format, in the order they apply after place and score
#: (``formats.FormatSpec.tie_breaks``).
ROUND_ROBIN_TIE_BREAKS = (
    TieBreak.HEAD_TO_HEAD,
    TieBreak.SONNEBORN_BERGER,
    TieBreak.POINTS_DIFFERENCE,
    TieBreak.POINTS_FOR,
)
SWISS_TIE_BREAKS = (
    TieBreak.BUCHHOLZ,
    TieBreak.SONNEBORN_BERGER,
    TieBreak.HEAD_TO_HEAD,
    TieBreak.POINTS_DIFFERENCE,
    TieBreak.POINTS_FOR,
)
ELIMINATION_TIE_BREAKS = (TieBreak.POINTS_DIFFERENCE, TieBreak.POINTS_FOR)


@dataclass(frozen=True)
class PairedSet:
    """A finished duplicate set between two entrants."""

    first: Hashable
    second: Hashable
    result: SetResult


@dataclass
class StandingRow:
    entrant: Hashable
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    score: float = 0.0
    points_for: int = 0
    points_against: int = 0
    head_to_head: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    place: int | None = None
    rank: int = 0
    #: (opponent, set points this entrant took from that set), one per set played.
    opponents: list[tuple[Hashable, float]] = field(default_factory=list, repr=False)

    @property
    def points_difference(self) -> int:
        return self.points_for - self.points_against

    def tie_break(self, name: TieBreak) -> float:
        return getattr(self, name.value)


def standings(
    entrants: Sequence[Hashable],
    sets: Iterable[PairedSet],
    *,
    tie_breaks: Sequence[TieBreak],
    byes: Iterable[Hashable] = (),
    bye_points: float = 1.0,
    places: Mapping[Hashable, int | None] | None = None,
) -> list[StandingRow]:
    """One row per entrant, best first, ``rank`` counting from 1; ``entrants`` in seed order."""
    rows = {entrant: StandingRow(entrant) for entrant in entrants}
    for paired in sets:
        _record_set(rows, paired)
    for entrant in byes:
        rows[entrant].byes += 1
        rows[entrant].score += bye_points
    for row in rows.values():
        row.place = (places or {}).get(row.entrant)
        row.buchholz = sum(rows[opponent].score for opponent, _ in row.opponents)
        row.sonneborn_berger = sum(
            taken * rows[opponent].score for opponent, taken in row.opponents
        )
    _head_to_head(rows.values())
    order = {entrant: index for index, entrant in enumerate(entrants)}
    ranked = sorted(rows.values(), key=lambda row: _sort_key(row, tie_breaks, order))
    for rank, row in enumerate(ranked, start=1):
        row.rank = rank
    return ranked


def _record_set(rows: dict[Hashable, StandingRow], paired: PairedSet) -> None:
    result = paired.result
    first_points, second_points = result.set_points()
    sides = (
        (paired.first, paired.second, first_points, result.first_points, result.second_points),
        (paired.second, paired.first, second_points, result.second_points, result.first_points),
    )
    for entrant, opponent, taken, scored, conceded in sides:
        row = rows[entrant]
        row.played += 1
        row.score += taken
        row.points_for += scored
        row.points_against += conceded
        row.wins += taken == 1.0
        row.draws += taken == 0.5
        row.losses += taken == 0.0
        row.opponents.append((opponent, taken))


def _head_to_head(rows: Iterable[StandingRow]) -> None:
    level: dict[tuple, list[StandingRow]] = defaultdict(list)
    for row in rows:
        level[(_place_key(row), row.score)].append(row)
    for group in level.values():
        tied = {row.entrant for row in group}
        for row in group:
            row.head_to_head = sum(taken for opponent, taken in row.opponents if opponent in tied)


def _place_key(row: StandingRow) -> int:
    # An entrant still in an elimination bracket ranks above every entrant already out.
    return 0 if row.place is None else row.place


def _sort_key(
    row: StandingRow, tie_breaks: Sequence[TieBreak], order: dict[Hashable, int]
) -> tuple[float, ...]:
    return (
        _place_key(row),
        -row.score,
        *(-row.tie_break(name) for name in tie_breaks),
        order[row.entrant],
    )
