"""Snag's deal score: suit lengths compared longest first, equal lengths cancelling."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def suit_lengths(cards: Iterable[str]) -> list[int]:
    """How many cards of each suit, longest first; suits with no card are left out."""
    return sorted(Counter(card[1] for card in cards).values(), reverse=True)


def deal_score(taken_0: Iterable[str], taken_1: Iterable[str]) -> tuple[int | None, int]:
    """``(scoring seat, points)``, or ``(None, 0)`` when every length cancels.

    The first unequal pair of lengths decides; a player whose lengths run out first loses
    the comparison. The scorer gets 1 + 2 + ... + n for the winning length n.
    """
    lengths = (suit_lengths(taken_0), suit_lengths(taken_1))
    for index in range(max(len(lengths[0]), len(lengths[1]))):
        first = lengths[0][index] if index < len(lengths[0]) else 0
        second = lengths[1][index] if index < len(lengths[1]) else 0
        if first != second:
            scorer, length = (0, first) if first > second else (1, second)
            return scorer, length * (length + 1) // 2
    return None, 0
