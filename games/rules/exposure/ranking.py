"""Exposure's card order within a suit, which the contract's high rank and the ace change.

Rules: ``docs/rules/exposure.md`` (settled points: ``docs/rulings.md``):
high to low A K Q J T 9, except that a high rank below the King moves just above the King, and
the ace is lowest when led and highest when played second, unless the high rank is A (then the
ace is always highest). Example, high rank J: (A played second) J K Q T 9 (A led).
"""

from __future__ import annotations


def rank_order(high_rank: str, led: bool) -> str:
    """The ranks of one suit from lowest to highest, for a card led or played second."""
    if high_rank == "A":
        return "9TJQKA"
    # A high rank below the King moves just above it; a K high rank leaves the order as it is.
    order = "9TJQK".replace(high_rank, "") + high_rank
    return "A" + order if led else order + "A"


def _strengths(led: bool) -> dict[str, dict[str, int]]:
    """One scale for led and second cards: 0 an ace led low, 1-5 the others, 6 the high ace."""
    tables = {}
    for high in "9TJQKA":
        order = rank_order(high, led)
        offset = 0 if order[0] == "A" else 1
        tables[high] = {rank: index + offset for index, rank in enumerate(order)}
    return tables


#: ``LED_STRENGTH[high rank][rank]``: a rank's strength when it is led (higher beats lower).
LED_STRENGTH = _strengths(led=True)
#: ``SECOND_STRENGTH[high rank][rank]``: a rank's strength when it is played second.
SECOND_STRENGTH = _strengths(led=False)


def second_card_wins(led: str, second: str, trump: str, high_rank: str) -> bool:
    """True if ``second`` beats ``led``: a higher card of the suit led, or a trump."""
    if second[1] == led[1]:
        return SECOND_STRENGTH[high_rank][second[0]] > LED_STRENGTH[high_rank][led[0]]
    return second[1] == trump
