"""Exposure's points: the bonus groups a player may expose, and the score of a deal.

Rules: ``docs/rules/exposure.md`` (settled points: ``docs/rulings.md``).
A group is 3 or 4 of a kind, or 4, 5 or 6 in sequence in the natural order 9 T J Q K A (ace
high only, any suits). It is drawn from the claimant's unexposed hand cards and the three
contract cards, and holds at least one hand card. A group's cards are listed in one canonical
order (rank, then suit S H D C) so that one group has one spelling.
"""

from __future__ import annotations

from itertools import combinations, product

from ..cards import FULL_DECK, SUITS, natural_value

SEQUENCE_RANKS = "9TJQKA"
KIND_POINTS = {3: 1, 4: 2}
SEQUENCE_POINTS = {4: 1, 5: 2, 6: 3}
POINTS_PER_TRICK = 2
CONTRACT_BONUS = 5
#: Tricks the right contract card's rank asks for.
CONTRACT_TRICKS = {"A": 9, "K": 8, "Q": 7, "J": 6, "T": 5, "9": 4}
#: Canonical position of every card (rank, then suit S H D C), for sorting a group's cards.
_RANK_THEN_SUIT = sorted(FULL_DECK, key=lambda card: (natural_value(card), SUITS.index(card[1])))
GROUP_ORDER: dict[str, int] = {card: index for index, card in enumerate(_RANK_THEN_SUIT)}

Group = tuple[str, ...]


def candidate_groups(hand: tuple[str, ...], contract: tuple[str, ...]) -> list[Group]:
    """Every group the holder of ``hand`` (her cards not yet exposed) could claim, kinds
    first, longest first."""
    by_rank: dict[str, list[str]] = {rank: [] for rank in SEQUENCE_RANKS}
    for card in sorted(hand + contract, key=GROUP_ORDER.__getitem__):
        by_rank[card[0]].append(card)
    cards_by_rank = list(by_rank.values())
    groups: list[Group] = []
    for size in (4, 3):
        for cards in cards_by_rank:
            if len(cards) >= size:
                groups += combinations(cards, size)
    if contract[0][0] == contract[1][0] == contract[2][0]:
        # Three contract cards of one rank make a kind without a hand card: no claim.
        groups.remove(tuple(sorted(contract, key=GROUP_ORDER.__getitem__)))
    for length in (6, 5, 4):
        for start in range(len(SEQUENCE_RANKS) - length + 1):
            window = cards_by_rank[start : start + length]
            # Three contract cards cannot fill four ranks: every sequence uses a hand card.
            if all(window):
                groups += product(*window)
    return groups


def group_points(group: tuple[str, ...] | list[str]) -> int:
    """Points of a valid group, its cards in any order: a kind if its ranks agree, otherwise
    a sequence (whose ranks all differ, so two cards tell one from the other)."""
    if group[0][0] == group[1][0]:
        return KIND_POINTS[len(group)]
    return SEQUENCE_POINTS[len(group)]


def deal_points(tricks_won: int, contract_tricks: int) -> tuple[int, int]:
    """``(trick points, contract bonus)`` of one player at the end of a deal."""
    bonus = CONTRACT_BONUS if tricks_won == contract_tricks else 0
    return POINTS_PER_TRICK * tricks_won, bonus
