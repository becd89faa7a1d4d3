"""Trick-taking mechanics that several games share: following suit and winning a trick."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import RANK_VALUE


def cards_of_suit(hand: Iterable[str], suit: str) -> list[str]:
    return [card for card in hand if card[1] == suit]


def playable_cards(hand: tuple[str, ...], led_suit: str | None) -> Sequence[str]:
    """The cards a player may play: the led suit if she holds it, otherwise any card."""
    if led_suit is None:
        return hand
    return [card for card in hand if card[1] == led_suit] or hand


def highest_of_suit_or_trump(led: str, other_card: str, trump: str | None) -> bool:
    """True if ``other_card``, played second, beats ``led`` under trump-and-follow rules.

    A trump beats any non-trump; otherwise only a higher card of the suit led wins (aces
    high; Exposure, whose order differs, has its own ``second_card_wins``).
    """
    if other_card[1] == led[1]:
        return RANK_VALUE[other_card[0]] > RANK_VALUE[led[0]]
    return other_card[1] == trump
