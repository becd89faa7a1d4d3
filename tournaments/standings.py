"""Standings from match results, with documented tie-breaks (pure; no Django).

Entrants are ranked by, in order:
1. wins;
2. head-to-head: wins in the matches played among the entrants still tied;
3. match-point difference (points scored minus points conceded over all matches);
4. match points scored;
5. entry order (the entrant registered first ranks first), so the order is total.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class MatchResult:
    """A finished match: the entrant in each seat, the winning seat and the match points."""

    entrants: tuple[Hashable, Hashable]
    winner: int
    scores: tuple[int, int]


@dataclass
class StandingRow:
    entrant: Hashable
    played: int = 0
    wins: int = 0
    losses: int = 0
    points_for: int = 0
    points_against: int = 0
    head_to_head: int = 0
    rank: int = 0
    beaten: list[Hashable] = field(default_factory=list, repr=False)

    @property
    def points_difference(self) -> int:
        return self.points_for - self.points_against


def standings(entrants: Sequence[Hashable], results: Iterable[MatchResult]) -> list[StandingRow]:
    """One row per entrant, best first, ``rank`` counting from 1."""
    rows = {entrant: StandingRow(entrant) for entrant in entrants}
    for result in results:
        _record(rows, result)
    by_wins: dict[int, list[StandingRow]] = defaultdict(list)
    for row in rows.values():
        by_wins[row.wins].append(row)
    for group in by_wins.values():
        tied = {row.entrant for row in group}
        for row in group:
            row.head_to_head = sum(1 for loser in row.beaten if loser in tied)
    order = {entrant: index for index, entrant in enumerate(entrants)}
    ranked = sorted(rows.values(), key=lambda row: _sort_key(row, order))
    for rank, row in enumerate(ranked, start=1):
        row.rank = rank
    return ranked


def _record(rows: dict[Hashable, StandingRow], result: MatchResult) -> None:
    for seat in (0, 1):
        row = rows[result.entrants[seat]]
        row.played += 1
        row.points_for += result.scores[seat]
        row.points_against += result.scores[1 - seat]
        if seat == result.winner:
            row.wins += 1
            row.beaten.append(result.entrants[1 - seat])
        else:
            row.losses += 1


def _sort_key(row: StandingRow, order: dict[Hashable, int]) -> tuple[int, ...]:
    return (
        -row.wins,
        -row.head_to_head,
        -row.points_difference,
        -row.points_for,
        order[row.entrant],
    )
