"""Exposure: claim the most bonus points, then take tricks until the contract is reached.

Claims: the best set of groups that share no hand card is found by a small search over the
hand cards each group uses (contract cards are free), and its first group is claimed.
Play (``docs/rules/exposure.md``): a trick is worth 2 and the contract bonus 5, so a player short of
the contract tries to win each trick, and one who has exactly the contract tries to lose
(another trick would gain 2 and cost 5). Winning is done with the cheapest card that wins;
losing with the least useful card. Leads are judged by the chance that the opponent holds
nothing that beats the card, estimated from the cards not yet seen.
"""

from __future__ import annotations

import random
from functools import cache

DECK = tuple(rank + suit for suit in "SHDC" for rank in "9TJQKA")
#: Points of a group by (all one rank, size).
GROUP_POINTS = {(True, 3): 1, (True, 4): 2, (False, 4): 1, (False, 5): 2, (False, 6): 3}


def choose(observation: dict, rng: random.Random) -> dict:
    legal = observation["legal_actions"]
    if observation["phase"] == "expose":
        return choose_claim(observation, legal)
    cards = [action["play"] for action in legal]
    table = Table(observation)
    if observation["trick"]:
        return {"play": table.follow(cards, observation["trick"][0]["card"])}
    return {"play": table.lead(cards)}


def group_points(group: list[str]) -> int:
    return GROUP_POINTS[(len({card[0] for card in group}) == 1, len(group))]


def choose_claim(observation: dict, legal: list[dict]) -> dict:
    """The first group of the best-scoring set of groups that share no hand card."""
    hand = observation["hand"]
    bit = {card: 1 << index for index, card in enumerate(hand)}
    best_by_mask: dict[int, tuple[int, dict]] = {}
    for action in legal:
        if action["expose"]:
            mask = sum(bit.get(card, 0) for card in action["expose"])
            points = group_points(action["expose"])
            if points > best_by_mask.get(mask, (0, None))[0]:
                best_by_mask[mask] = (points, action)
    options = tuple((mask, points) for mask, (points, _) in best_by_mask.items())
    if not options:
        return {"expose": []}
    first_mask = best_plan(options)[1]
    return best_by_mask[first_mask][1] if first_mask else {"expose": []}


def best_plan(options: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """``(points, first group's mask)`` of the best disjoint set of groups."""

    @cache
    def best(used: int) -> int:
        return max(
            [0, *(points + best(used | mask) for mask, points in options if not used & mask)]
        )

    total, first = 0, 0
    for mask, points in options:
        value = points + best(mask)
        if value > total:
            total, first = value, mask
    return total, first


class Table:
    """What the seat knows of the deal, and the card strengths the contract sets."""

    def __init__(self, observation: dict) -> None:
        seat = observation["seat"]
        contract = observation["contract"]
        self.trump = contract["trump"]
        led, second = contract["rank_order_led"], contract["rank_order_second"]
        # One scale for both orders: a led ace (if it ranks low) sits below everything.
        offset = 1 if led[0] == "A" and second[0] != "A" else 0
        self.led_strength = {rank: index for index, rank in enumerate(led)}
        self.second_strength = {rank: index + offset for index, rank in enumerate(second)}
        mine = observation["hand"] + observation["exposed"][seat]
        self.their_exposed = observation["exposed"][1 - seat]
        played = [card for trick in observation["tricks"] for card in trick["cards"]]
        played += [play["card"] for play in observation["trick"]]
        seen = set(mine) | set(self.their_exposed) | set(contract["cards"]) | set(played)
        self.unseen = [card for card in DECK if card not in seen]
        # The opponent's hidden cards are among the unseen ones; the rest were discarded.
        hidden = observation["opponent_hand_size"]
        self.hidden_share = hidden / len(self.unseen) if self.unseen else 0.0
        # Short of the contract, or past it: every trick is 2 more. At it: one more costs 3.
        self.wants_tricks = observation["tricks_won"][seat] != contract["contract_tricks"]

    def beats(self, led: str, second: str) -> bool:
        if second[1] == led[1]:
            return self.second_strength[second[0]] > self.led_strength[led[0]]
        return second[1] == self.trump

    def cost(self, card: str) -> float:
        """How much a card is worth keeping: trumps and high cards most."""
        return self.second_strength[card[0]] + (10 if card[1] == self.trump else 0)

    def follow(self, cards: list[str], led: str) -> str:
        winners = [card for card in cards if self.beats(led, card)]
        if self.wants_tricks and winners:
            return min(winners, key=self.cost)
        losers = [card for card in cards if card not in winners] or cards
        return min(losers, key=self.cost)

    def lead(self, cards: list[str]) -> str:
        chances = {card: self.chance_to_win_lead(card) for card in cards}
        if self.wants_tricks:
            return max(cards, key=lambda card: (chances[card], -self.cost(card)))
        return min(cards, key=lambda card: (chances[card], self.cost(card)))

    def chance_to_win_lead(self, card: str) -> float:
        if any(self.beats(card, theirs) for theirs in self.their_exposed):
            return 0.0
        hidden_beaters = sum(1 for theirs in self.unseen if self.beats(card, theirs))
        return (1 - self.hidden_share) ** hidden_beaters
