"""An elimination bracket laid out for drawing: sides, then rounds as columns, then pairings.

Input is the tournaments app's ``tournament_bracket`` (one view per bracket pairing, in
bracket order); output names each column the way players say it ("Semi-finals").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

SIDE_TITLES = {"winners": "Winners' bracket", "losers": "Losers' bracket", "final": "Grand final"}
#: Names of the last rounds of a knock-out, counted back from the final.
LAST_ROUNDS = ["Final", "Semi-finals", "Quarter-finals"]


@dataclass
class Column:
    title: str
    pairings: list[Any] = field(default_factory=list)


@dataclass
class Section:
    side: str
    title: str
    columns: list[Column] = field(default_factory=list)


def bracket_sections(pairings: Sequence[Any], *, double: bool) -> list[Section]:
    """The pairings grouped by side and round, in bracket order within each round."""
    sections: dict[str, Section] = {}
    for pairing in pairings:
        side = pairing.side
        section = sections.setdefault(side, Section(side, SIDE_TITLES[side]))
        while len(section.columns) < pairing.round:
            section.columns.append(Column(""))
        section.columns[pairing.round - 1].pairings.append(pairing)
    for section in sections.values():
        for number, column in enumerate(section.columns, start=1):
            column.title = round_title(section.side, number, len(section.columns), double=double)
    if not double and "winners" in sections:
        sections["winners"].title = "Bracket"
    return list(sections.values())


def round_title(side: str, number: int, rounds: int, *, double: bool) -> str:
    if side == "final":
        return "Grand final" if number == 1 else "Reset (if needed)"
    if side == "losers":
        return "Losers' final" if number == rounds else f"Losers' round {number}"
    from_the_end = rounds - number
    if double and from_the_end == 0:
        return "Winners' final"
    if from_the_end < len(LAST_ROUNDS):
        return LAST_ROUNDS[from_the_end]
    return f"Round {number}"
