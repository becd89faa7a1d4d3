"""Cards as two-character strings, rank then suit (``docs/rulings.md``, "Conventions").

A card is a plain ``str`` such as ``"AS"`` or ``"TD"``: it is hashable, JSON-ready and
readable in logs, so no wrapper class is needed.
"""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "SHDC"
RED_SUITS = "HD"

#: Natural rank value, 2 (lowest) to 14 (ace).
RANK_VALUE: dict[str, int] = {rank: value for value, rank in enumerate(RANKS, start=2)}

FULL_DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
_ALL_CARDS = frozenset(FULL_DECK)


def make_deck(ranks: str = RANKS) -> tuple[str, ...]:
    """The cards of the given ranks in every suit, in a fixed reference order."""
    return tuple(rank + suit for suit in SUITS for rank in ranks)


def is_card(value: object) -> bool:
    return isinstance(value, str) and value in _ALL_CARDS


def natural_value(card: str) -> int:
    """The card's rank value with aces high, 2 to 14."""
    return RANK_VALUE[card[0]]


def is_red(card: str) -> bool:
    return card[1] in RED_SUITS
