"""Jam: keep the lead with high cards, take tricks cheaply, and break the opponent's runs.

Every card a player holds is played before the deal ends (``docs/rules/jam.md``: 26 tricks,
26 cards each), so a card spent now is only missing later: spending costs a little per rank.
A trick is worth one trick towards the 14 of a majority, plus what it does to the slam
counters: reaching 4 in a row banks a point, 5 two more, and a won trick resets the
opponent's counter. Leads are judged by the chance that the opponent holds a strictly
higher card, sampling her unknown cards from those of her colour not seen yet.
"""

from __future__ import annotations

import random

RANKS = "23456789TJQKA"
RANK_VALUE = {rank: value for value, rank in enumerate(RANKS, start=2)}
RED = tuple(rank + suit for suit in "HD" for rank in RANKS)
BLACK = tuple(rank + suit for suit in "SC" for rank in RANKS)
#: What a trick is worth beyond its slam effects (a step towards 14 of the 26).
TRICK_VALUE = 0.5
#: Cost per rank step of playing a card now instead of keeping it for later tricks.
SPEND = 0.06
#: Opponent hands sampled to judge a lead.
SAMPLES = 30


def choose(observation: dict, rng: random.Random) -> dict:
    legal = observation["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    phase = observation["phase"]
    if phase == "draw":
        return draw_choice(observation, legal)
    if phase == "discard":
        return min(legal, key=lambda action: rank(action["discard"]))
    if phase == "follow":
        led = rank(observation["trick"][0]["card"])
        return max(legal, key=lambda action: follow_value(observation, led, action["play"]))
    hands = sampled_opponent_hands(observation, rng)
    return max(legal, key=lambda action: lead_value(observation, action["play"], hands))


def rank(card: str) -> int:
    return RANK_VALUE[card[0]]


def win_value(observation: dict, winner: int) -> float:
    """What one more trick for ``winner`` is worth to me: the trick and its slam effects."""
    me = observation["seat"]
    value = TRICK_VALUE + slam_points(observation, winner) + broken_run(observation, 1 - winner)
    return value if winner == me else -value


def slam_points(observation: dict, winner: int) -> float:
    streak = observation["streaks"][winner] + 1
    if streak == 4:
        return 1.0
    if streak == 5:
        return 2.0
    # A run that is getting close to a slam is worth keeping alive.
    return 0.3 * streak if not observation["grand_slams"][winner] else 0.2 * streak


def broken_run(observation: dict, loser: int) -> float:
    """What the loser of the trick gives up when her run of tricks is reset."""
    streak = observation["streaks"][loser]
    return 0.25 * streak * streak


def follow_value(observation: dict, led: int, card: str) -> float:
    me = observation["seat"]
    winner = me if rank(card) > led else 1 - me
    return win_value(observation, winner) - SPEND * rank(card)


def lead_value(observation: dict, card: str, hands: list[list[int]]) -> float:
    me = observation["seat"]
    led = rank(card)
    beaten = sum(1 for hand in hands if hand and max(hand) > led) / len(hands)
    expected = beaten * win_value(observation, 1 - me) + (1 - beaten) * win_value(observation, me)
    return expected - SPEND * led


def draw_choice(observation: dict, legal: list[dict]) -> dict:
    """The stock, unless the top of the discard pile beats the stock's average card."""
    actions = {action["draw"]: action for action in legal}
    pile = observation["discard_piles"][observation["seat"]]
    stock = my_stock_cards(observation)
    if "discard" in actions and (not stock or rank(pile[-1]) > sum(stock) / len(stock)):
        return actions["discard"]
    return actions.get("stock", legal[0])


def colour_of(seat: int, observation: dict) -> tuple[str, ...]:
    """The cards of ``seat``'s colour this deal: the non-dealer has the reds."""
    return RED if seat != observation["dealer"] else BLACK


def played_cards(observation: dict) -> set[str]:
    played = {play["card"] for play in observation["trick"]}
    for pile in observation["won"]:
        played.update(pile)
    return played


def my_stock_cards(observation: dict) -> list[int]:
    """The ranks of my face-down stock: my colour's cards not seen anywhere else."""
    me = observation["seat"]
    seen = played_cards(observation) | set(observation["hand"])
    seen.update(observation["discard_piles"][me])
    return [rank(card) for card in colour_of(me, observation) if card not in seen]


def sampled_opponent_hands(observation: dict, rng: random.Random) -> list[list[int]]:
    """Ranks of possible opponent hands: her known cards plus a sample of her unseen ones."""
    opponent = 1 - observation["seat"]
    known = observation["opponent_known_cards"]
    seen = played_cards(observation) | set(known)
    seen.update(observation["discard_piles"][opponent])
    unseen = [rank(card) for card in colour_of(opponent, observation) if card not in seen]
    size = observation["opponent_hand_size"] - len(known)
    base = [rank(card) for card in known]
    if size <= 0 or len(unseen) <= size:
        return [base + unseen[: max(size, 0)]]
    return [base + rng.sample(unseen, size) for _ in range(SAMPLES)]
