"""Rounds' score for a stage: 10 for a sweep of all five tricks, else the card points taken.

Rules: ``docs/rules/rounds.md`` (settled points: ``docs/rulings.md``):
A 4, K 3, Q 2, J 1 and each 2 scores 10 (the original text's "for 2 given by 10 points", read
literally); every other card scores nothing. Points are only added after the fifth stage,
and the match is checked after each game: a score at the target or above wins if the
scores differ.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import RANKS

TRICKS_PER_STAGE = 5
SWEEP_POINTS = 10
CARD_POINTS: dict[str, int] = {"A": 4, "K": 3, "Q": 2, "J": 1, "2": 10}
RANK_POINTS: dict[str, int] = {rank: CARD_POINTS.get(rank, 0) for rank in RANKS}


def match_winner(scores: tuple[int, int], target: int) -> int | None:
    """The seat that wins once a score has reached ``target`` and the scores differ."""
    if max(scores) < target or scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1


def card_points(cards: Iterable[str]) -> int:
    ranks = "".join(cards)[::2]  # every card is two characters, rank then suit
    return sum(map(RANK_POINTS.__getitem__, ranks))


def stage_points(tricks: int, captured: Iterable[str]) -> int:
    """What one player scores for one stage: a sweep scores 10 and its cards nothing."""
    if tricks == TRICKS_PER_STAGE:
        return SWEEP_POINTS
    return card_points(captured)
