"""Rounds: capture the twos and honours, give away nothing, and keep trumps for the twos.

Card points (``docs/rules/rounds.md``) make every 2 worth 10 and the honours A 4, K 3, Q 2, J 1, so
a trick is judged by the points it moves: won, they are mine; lost, they are the opponent's.
Spending a card also costs its use in later tricks: trumps most, high cards some, and a
plain 2 less than nothing, since it is a liability that must be played some day. Follows are
judged exactly on the card led; leads by sampling the opponent's hand from the unseen cards
(respecting the suits she has shown she lacks this stage) and letting her answer greedily.
"""

from __future__ import annotations

import random

RANKS = "23456789TJQKA"
RANK_VALUE = {rank: value for value, rank in enumerate(RANKS, start=2)}
DECK = tuple(rank + suit for suit in "SHDC" for rank in RANKS)
CARD_POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1, "2": 10}
SWEEP_POINTS = 10
#: Opponent hands sampled to judge a lead.
SAMPLES = 24
#: What holding a plain 2 is expected to cost later: it is usually lost in the end.
PLAIN_TWO_LIABILITY = 6.0


def choose(observation: dict, rng: random.Random) -> dict:
    legal = observation["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    if observation["trick"]:
        led = observation["trick"][0]["card"]
        return max(legal, key=lambda action: follow_value(observation, led, action["play"]))
    hands = sampled_opponent_hands(observation, rng)
    return max(legal, key=lambda action: lead_value(observation, action["play"], hands))


def points(card: str) -> int:
    return CARD_POINTS.get(card[0], 0)


def beats(led: str, card: str, trump: str) -> bool:
    """True if ``card``, played second, takes the trick led with ``led``."""
    if card[1] == led[1]:
        return RANK_VALUE[card[0]] > RANK_VALUE[led[0]]
    return card[1] == trump


def spend_cost(card: str, trump: str, cards_left: int) -> float:
    """What playing ``card`` now gives up in later tricks (nothing on the last card)."""
    if cards_left <= 1:
        return 0.0
    rank = RANK_VALUE[card[0]]
    if card[1] == trump:
        return 2.0 + 0.25 * rank
    if card[0] == "2":
        return -PLAIN_TWO_LIABILITY
    return 0.12 * max(0, rank - 8)


def trick_value(observation: dict, led: str, second: str, i_lead: bool) -> float:
    """Points the finished trick moves to me (positive) or to the opponent (negative)."""
    i_win = beats(led, second, observation["trump"]) != i_lead
    stake = points(led) + points(second)
    if i_win:
        return stake + sweep_bonus(observation, stake)
    return -stake - sweep_bonus(observation, stake, mine=False)


def sweep_bonus(observation: dict, stake: int, mine: bool = True) -> float:
    """The difference a fifth trick makes when one player has won the other four."""
    seat = observation["seat"] if mine else 1 - observation["seat"]
    if observation["tricks_played"] != 4 or observation["tricks_won"][seat] != 4:
        return 0.0
    captured = sum(points(card) for card in observation["captured"][seat])
    return SWEEP_POINTS - captured - stake


def follow_value(observation: dict, led: str, card: str) -> float:
    cards_left = len(observation["hand"])
    return trick_value(observation, led, card, i_lead=False) - spend_cost(
        card, observation["trump"], cards_left
    )


def lead_value(observation: dict, card: str, hands: list[list[str]]) -> float:
    trump = observation["trump"]
    total = 0.0
    for hand in hands:
        reply = best_reply(card, hand, trump)
        total += trick_value(observation, card, reply, i_lead=True)
    return total / len(hands) - spend_cost(card, trump, len(observation["hand"]))


def best_reply(led: str, hand: list[str], trump: str) -> str:
    """A greedy opponent: take the trick cheaply when it pays, else throw the cheapest card."""
    following = [card for card in hand if card[1] == led[1]] or hand
    return max(
        following,
        key=lambda card: (
            (points(led) + points(card) if beats(led, card, trump) else -points(card))
            - spend_cost(card, trump, len(hand))
        ),
    )


def unseen_cards(observation: dict) -> list[str]:
    """Cards that may be in the opponent's hand: not mine, not played this game, not face up."""
    seen = set(observation["hand"]) | set(observation["trump_cards"])
    seen.update(play["card"] for play in observation["trick"])
    for pile in observation["captured"]:
        seen.update(pile)
    for stage in observation["last_stages"]:
        for pile in stage["captured"]:
            seen.update(pile)
    return [card for card in DECK if card not in seen]


def opponent_voids(observation: dict) -> set[str]:
    """Suits the opponent failed to follow this stage (she gets no new cards until the next)."""
    opponent = 1 - observation["seat"]
    plays = [entry for entry in observation["history"] if "action" in entry]
    voids = set()
    for lead, reply in zip(plays[::2], plays[1::2], strict=False):
        led, played = lead["action"]["play"], reply["action"]["play"]
        if reply["seat"] == opponent and played[1] != led[1]:
            voids.add(led[1])
    return voids


def sampled_opponent_hands(observation: dict, rng: random.Random) -> list[list[str]]:
    size = observation["opponent_hand_size"]
    voids = opponent_voids(observation)
    pool = [card for card in unseen_cards(observation) if card[1] not in voids]
    if len(pool) < size:
        pool = unseen_cards(observation)
    return [rng.sample(pool, size) for _ in range(SAMPLES)]
