"""Snag: collect one long suit, win tricks with the cheapest card that wins, deny the opponent.

Every choice is judged by the same outlook of the deal: the points the taken cards would score
now (Snag's suit-length comparison, ``docs/rules/snag.md``) plus a small bonus for long suits still
growing. Takes look ahead through the three picks of a trick; plays weigh the chance of
winning the trick, estimated from the ranks not yet seen, against spending a high card.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import permutations

RANKS = "23456789TJQKA"
RANK_VALUE = {rank: value for value, rank in enumerate(RANKS, start=2)}
DECK = tuple(rank + suit for suit in "SHDC" for rank in RANKS)
#: Weight of suit-length growth against points scored now.
GROWTH = 0.3
#: Cost of spending a card, per rank step: high cards win later tricks.
SPEND = 0.05


def choose(observation: dict, rng: random.Random) -> dict:
    _suits_outlook.cache_clear()  # one decision's look-ahead; nothing is kept beyond it
    phase = observation["phase"]
    legal = observation["legal_actions"]
    if phase == "bar":
        return max(legal, key=lambda action: bar_value(observation, action["bar"]))
    if phase == "follow":
        return max(legal, key=lambda action: follow_value(observation, action["play"]))
    if phase == "lead":
        return max(legal, key=lambda action: lead_value(observation, action["play"]))
    return max(legal, key=lambda action: take_value(observation, action["take"]))


def rank(card: str) -> int:
    return RANK_VALUE[card[0]]


def suit_lengths(suits: str) -> list[int]:
    """How many cards of each suit ``suits`` holds (one letter per card), longest first."""
    return sorted([n for n in map(suits.count, "SHDC") if n], reverse=True)


def signed_deal_score(my_lengths: list[int], their_lengths: list[int]) -> int:
    """What the deal would score if it ended now, from both sides' ``suit_lengths``: positive
    for me, negative for them."""
    for index in range(max(len(my_lengths), len(their_lengths))):
        a = my_lengths[index] if index < len(my_lengths) else 0
        b = their_lengths[index] if index < len(their_lengths) else 0
        if a != b:
            return a * (a + 1) // 2 if a > b else -(b * (b + 1) // 2)
    return 0


def outlook(mine: list[str], theirs: list[str]) -> float:
    suits = "".join([card[1] for card in mine]), "".join([card[1] for card in theirs])
    return _suits_outlook(*suits)


@cache
def _suits_outlook(my_suits: str, their_suits: str) -> float:
    """``outlook`` of taken cards of these suits (a letter per card). A decision's look-ahead
    asks for the same few pairs hundreds of times: remembered until the next decision."""
    my_lengths, their_lengths = suit_lengths(my_suits), suit_lengths(their_suits)
    growth = sum(n * n for n in my_lengths) - sum(n * n for n in their_lengths)
    return signed_deal_score(my_lengths, their_lengths) + GROWTH * growth


def takes(observation: dict) -> tuple[list[str], list[str]]:
    seat = observation["seat"]
    return observation["taken"][seat], observation["taken"][1 - seat]


def split_value(pool: list, i_pick_first: bool, mine: list[str], theirs: list[str]) -> float:
    """The outlook after the three picks of a trick, both players picking their best.

    The winner picks, the loser picks, the winner gets the last card. ``None`` in ``pool``
    stands for a card not known yet and counts for nobody.
    """
    outcomes = []
    for first in set(pool):
        rest = list(pool)
        rest.remove(first)
        replies = [
            _after_picks(first, second, third, i_pick_first, mine, theirs)
            for second, third in permutations(rest)
        ]
        outcomes.append(min(replies) if i_pick_first else max(replies))
    return max(outcomes) if i_pick_first else min(outcomes)


def _after_picks(
    first: str | None,
    second: str | None,
    third: str | None,
    i_pick_first: bool,
    mine: list[str],
    theirs: list[str],
) -> float:
    winner_cards = [card for card in (first, third) if card]
    loser_cards = [second] if second else []
    if i_pick_first:
        return outlook(mine + winner_cards, theirs + loser_cards)
    return outlook(mine + loser_cards, theirs + winner_cards)


def take_value(observation: dict, card: str) -> float:
    mine, theirs = takes(observation)
    rest = list(observation["untaken"])
    rest.remove(card)
    if observation["phase"] == "take_second":
        return outlook(mine + [card], theirs + rest)
    return min(
        outlook(mine + [card, last], theirs + [second]) for second, last in permutations(rest)
    )


def unseen_ranks(observation: dict) -> list[int]:
    """Ranks of the cards this seat has not seen; the opponent's hand is among them."""
    seen = set(observation["hand"]) | set(observation["bar"])
    seen.update(play["card"] for play in observation["trick"])
    for taken in observation["taken"]:
        seen.update(taken)
    return [rank(card) for card in DECK if card not in seen]


def chance_all_below(observation: dict, threshold: int) -> float:
    """Chance that every card in the opponent's hand ranks at most ``threshold``."""
    ranks = unseen_ranks(observation)
    low = sum(1 for value in ranks if value <= threshold) / len(ranks)
    return low ** observation["opponent_hand_size"]


def lead_value(observation: dict, card: str) -> float:
    """Playing last, the trick is known: win cheaply if winning is worth it."""
    bar_card, their_card = (play["card"] for play in observation["trick"])
    mine, theirs = takes(observation)
    # Among equal ranks the card played last wins: mine beats a tie, the bar card does not.
    i_win = rank(card) >= rank(their_card) or rank(bar_card) > rank(their_card)
    return split_value([bar_card, their_card, card], i_win, mine, theirs) - SPEND * rank(card)


def follow_value(observation: dict, card: str) -> float:
    bar_card = observation["trick"][0]["card"]
    mine, theirs = takes(observation)
    pool = [bar_card, card, None]
    # The leader plays last and wins with any card ranking at least mine.
    chance = chance_all_below(observation, rank(card) - 1) if rank(card) >= rank(bar_card) else 0.0
    win, lose = split_value(pool, True, mine, theirs), split_value(pool, False, mine, theirs)
    return chance * win + (1 - chance) * lose - SPEND * rank(card)


def bar_value(observation: dict, bar_card: str) -> float:
    """I lead this bar card and play last: I win unless the follower tops both."""
    mine, theirs = takes(observation)
    following = [card for card in observation["hand"] if card[1] == bar_card[1]]
    my_best = max(rank(card) for card in following or observation["hand"])
    # The follower wins only with a card above my best and above the bar card.
    chance = chance_all_below(observation, max(my_best, rank(bar_card) - 1))
    pool = [bar_card, None, None]
    return chance * split_value(pool, True, mine, theirs) + (1 - chance) * split_value(
        pool, False, mine, theirs
    )
