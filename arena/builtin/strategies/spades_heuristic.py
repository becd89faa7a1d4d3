"""Two-handed Spades: keep good cards, bid for the best expected score, then take tricks.

Scoring (``docs/rules/spades.md``) pays 10 a trick bid when the bid is made and only 1 a
trick over, and a set costs 10 a trick bid, so the bid is the one with the best expected
score for the tricks the hand should take (an estimate fitted on self-play), a cautious one.
With no penalty for tricks over, every trick won helps (it makes the bid or sets the
opponent), so play tries to win every trick as cheaply as possible: win with the lowest
card that wins, trump when void, lead cards that no unseen card can beat, otherwise lead
low from the longest side suit and keep high cards for later.
"""

from __future__ import annotations

import math
import random

RANKS = "23456789TJQKA"
RANK_VALUE = {rank: value for value, rank in enumerate(RANKS, start=2)}
DECK = tuple(rank + suit for suit in "SHDC" for rank in RANKS)
TRUMP = "S"
#: Selection deal: keep a card worth at least this (a card drawn blind averages about 0.2).
KEEP_THRESHOLD = 0.45
#: Sure tricks expected from a high side card, by rank and the suit's length in hand.
SIDE_TRICKS = {"A": 0.95, "K": 0.6, "Q": 0.25}
SPADE_TRICKS = {"A": 1.0, "K": 0.9, "Q": 0.7, "J": 0.45, "T": 0.3}
#: Tricks taken against a like-minded opponent, fitted on self-play for each way of dealing:
#: ``base + per_strength * hand_strength``, give or take ``spread`` (selected hands are
#: stronger on both sides, so strength counts for less there).
TRICKS_FIT = {"automatic": (4.45, 0.85, 1.6), "selection": (1.95, 1.12, 1.4)}


def choose(observation: dict, rng: random.Random) -> dict:
    phase = observation["phase"]
    if phase == "draw":
        return {"keep": card_worth(observation["draw_card"]) >= KEEP_THRESHOLD}
    if phase == "bid":
        return {"bid": bid_for(observation["hand"], observation["options"]["deal"])}
    cards = [action["play"] for action in observation["legal_actions"]]
    if observation["trick"]:
        return {"play": follow(cards, observation["trick"][0]["card"])}
    return {"play": lead(cards, observation)}


def value(card: str) -> int:
    return RANK_VALUE[card[0]]


def card_worth(card: str) -> float:
    """How much a card adds to a hand's trick taking (about 1 for a sure trick)."""
    if card[1] == TRUMP:
        return SPADE_TRICKS.get(card[0], 0.25 + value(card) / 100)
    return SIDE_TRICKS.get(card[0], 0.0)


def bid_for(hand: list[str], deal: str) -> int:
    """The bid with the best expected score for the tricks this hand should take."""
    base, per_strength, spread = TRICKS_FIT[deal]
    chances = trick_chances(base + per_strength * hand_strength(hand), spread)
    return max(range(14), key=lambda bid: expected_score(bid, chances))


def hand_strength(hand: list[str]) -> float:
    """A count of the hand's sure tricks: high cards and long or ruffing spades."""
    by_suit: dict[str, list[str]] = {suit: [] for suit in "SHDC"}
    for card in hand:
        by_suit[card[1]].append(card)
    spades = len(by_suit[TRUMP])
    strength = sum(SPADE_TRICKS.get(card[0], 0.0) for card in by_suit[TRUMP])
    strength += 0.6 * max(0, spades - 4)  # long trumps win late tricks
    for suit in "HDC":
        cards = by_suit[suit]
        for card in cards:
            # A king needs a second card and a queen two more, or they fall under the ace.
            if card[0] in SIDE_TRICKS and len(cards) > "AKQ".index(card[0]):
                strength += SIDE_TRICKS[card[0]]
        if len(cards) <= 1 and spades >= 3:
            strength += 0.5 * (2 - len(cards))  # a short suit lets the spares ruff
    return strength


def trick_chances(mean: float, spread: float) -> list[float]:
    """Chance of taking 0..13 tricks: a normal curve around ``mean``, cut into whole tricks."""

    def below(x: float) -> float:
        return 0.5 * (1 + math.erf((x - mean) / (spread * math.sqrt(2))))

    # The open ends of the curve go to 0 and 13 tricks.
    cuts = [0.0, *(below(tricks + 0.5) for tricks in range(13)), 1.0]
    return [high - low for low, high in zip(cuts, cuts[1:], strict=False)]


def expected_score(bid: int, chances: list[float]) -> float:
    return sum(
        chance * (10 * bid + tricks - bid if tricks >= bid else -10 * bid)
        for tricks, chance in enumerate(chances)
    )


def follow(cards: list[str], led: str) -> str:
    winners = [card for card in cards if beats(led, card)]
    if winners:
        return min(winners, key=keep_value)
    return min(cards, key=keep_value)


def beats(led: str, second: str) -> bool:
    if second[1] == led[1]:
        return value(second) > value(led)
    return second[1] == TRUMP


def keep_value(card: str) -> int:
    """Lower is cheaper to give up: low side cards first, spades last."""
    return value(card) + (20 if card[1] == TRUMP else 0)


def lead(cards: list[str], observation: dict) -> str:
    unseen = unseen_cards(observation)
    # A master is the highest of its suit still out (a side master can still be trumped).
    masters = [
        card
        for card in cards
        if not any(other[1] == card[1] and value(other) > value(card) for other in unseen)
    ]
    side_masters = [card for card in masters if card[1] != TRUMP]
    if side_masters:
        return max(side_masters, key=value)
    if masters:
        return max(masters, key=value)
    side = [card for card in cards if card[1] != TRUMP] or cards
    longest = max("SHDC", key=lambda suit: sum(1 for card in side if card[1] == suit))
    return min((card for card in side if card[1] == longest), key=value)


def unseen_cards(observation: dict) -> list[str]:
    """Cards that may be in the opponent's hand: none this seat holds, saw or saw played."""
    seen = set(observation["hand"]) | set(observation["seen_discards"])
    for trick in observation["tricks"]:
        seen.update(trick["cards"])
    return [card for card in DECK if card not in seen]
