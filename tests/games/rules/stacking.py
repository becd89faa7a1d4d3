"""Building stacked decks for scenario tests: the cards that matter first, the rest after."""

from __future__ import annotations

from games.rules.cards import FULL_DECK


def stacked_order(*cards: str, deck: tuple[str, ...] = FULL_DECK) -> list[str]:
    """A full deck order starting with ``cards``; the others follow in reference order."""
    chosen = list(cards)
    assert len(set(chosen)) == len(chosen), "a stacked deck repeats a card"
    return chosen + [card for card in deck if card not in set(chosen)]
