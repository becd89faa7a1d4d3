"""Snag's deal score: suit lengths compared longest first, equal lengths cancelling."""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import SUITS


def suit_lengths(cards: Iterable[str]) -> list[int]:
    """How many cards of each of the four suits, longest first (0 for a suit with no card).

    A 0 compares as a length that has run out, so the zeros need no special case.
    """
    suits = "".join(cards)[1::2]  # every card is two characters, rank then suit
    return sorted(map(suits.count, SUITS), reverse=True)


def deal_score(taken_0: Iterable[str], taken_1: Iterable[str]) -> tuple[int | None, int]:
    """``(scoring seat, points)``, or ``(None, 0)`` when every length cancels.

    The first unequal pair of lengths decides; a player whose lengths run out first loses
    the comparison. The scorer gets 1 + 2 + ... + n for the winning length n.
    """
    for first, second in zip(suit_lengths(taken_0), suit_lengths(taken_1), strict=True):
        if first != second:
            scorer, length = (0, first) if first > second else (1, second)
            return scorer, length * (length + 1) // 2
    return None, 0
