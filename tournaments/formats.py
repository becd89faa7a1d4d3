"""Tournament formats as pure functions: entrants in, pairings out (no Django, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def round_robin_rounds(entrants: Sequence[T]) -> list[list[tuple[T, T]]]:
    """Every pair exactly once, grouped in rounds where nobody plays twice (circle method).

    With an odd field one entrant sits out each round. Pairs are ``(a, b)`` with ``a`` the
    entrant listed earlier, so seat assignment is left to the caller.
    """
    field: list[T | None] = list(entrants)
    if len(field) < 2:
        return []
    if len(field) % 2:
        field.append(None)
    rounds = []
    for _ in range(len(field) - 1):
        half = len(field) // 2
        pairs = [(field[i], field[-1 - i]) for i in range(half)]
        rounds.append(
            [_in_entry_order(a, b, entrants) for a, b in pairs if a is not None and b is not None]
        )
        field = [field[0], field[-1], *field[1:-1]]
    return rounds


def _in_entry_order(a: T, b: T, entrants: Sequence[T]) -> tuple[T, T]:
    return (a, b) if entrants.index(a) < entrants.index(b) else (b, a)
