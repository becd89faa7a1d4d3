"""Trick-taking mechanics that several games share: following suit and winning a trick."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import RANK_VALUE, RANKS, SUITS

#: Every card of each suit, so that the cards of one suit are picked out of a hand in C.
SUIT_CARDS: dict[str, frozenset[str]] = {
    suit: frozenset(rank + suit for rank in RANKS) for suit in SUITS
}


#: ``IN_SUIT[suit](card)``: whether ``card`` is of ``suit``, as a C function for ``filter``.
IN_SUIT = {suit: cards.__contains__ for suit, cards in SUIT_CARDS.items()}


def playable_cards(hand: tuple[str, ...], led_suit: str) -> Sequence[str]:
    """The cards a player may play: the led suit if she holds it, otherwise any card."""
    return list(filter(IN_SUIT[led_suit], hand)) or hand


def highest_of_suit_or_trump(led: str, other_card: str, trump: str | None) -> bool:
    """True if ``other_card``, played second, beats ``led`` under trump-and-follow rules.

    A trump beats any non-trump; otherwise only a higher card of the suit led wins (aces
    high; Exposure, whose order differs, has its own ``second_card_wins``).
    """
    if other_card[1] == led[1]:
        return RANK_VALUE[other_card[0]] > RANK_VALUE[led[0]]
    return other_card[1] == trump


def trick_view(trick: tuple[tuple[int, str], ...]) -> list[dict[str, Any]]:
    """A trick of ``(seat, card)`` pairs as a view shows it."""
    return [{"seat": seat, "card": card} for seat, card in trick]
