"""A Monte Carlo bot for Snag that thinks with the rules engine bundled beside it.

For each decision it samples deals consistent with what it has seen (the opponent's hand
drawn from the unseen cards, respecting the suits the opponent showed void in), replays the
deal so far in each sample with the engine, tries every legal action there and plays the
rest of the deal out at random; it plays the action with the best average deal score.
This is determinised ("perfect information") Monte Carlo; docs/bot-author-guide.md
explains it.

Build its upload (this file plus a copy of ``games/rules``) and play it locally:

    python examples/montecarlo/build.py
    python manage.py play snag var/montecarlo heuristic

Standard library only, plus the engine in ``games/rules`` next to this file.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

# ``python -I`` leaves this folder off sys.path: put it back to import the bundled engine.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from games.rules import IllegalAction, State, get_game  # noqa: E402

GAME = get_game("snag")
#: No simulated deal can end the match, so every rollout stops at the end of its deal.
SIMULATION_OPTIONS = {"target": 10_000}
#: The share of the decision limit spent thinking: the rest absorbs start-up and noise.
BUDGET_SHARE = 0.3
#: The sandbox allows 60 s of CPU per match (per match of a series too); stay well below it.
CPU_CEILING = 40.0
#: Every decision assumes at least this many more will follow (a guard, not an estimate).
DECISIONS_AHEAD = 60
#: Samples that contradict the history (an impossible hand) are redrawn this many times.
SAMPLE_ATTEMPTS = 20


def suit(card: str) -> str:
    return card[1]


def seen_cards(observation: dict) -> set[str]:
    """Every card of this deal whose place the seat knows: its hand, the bar, all played."""
    seen = set(observation["hand"]) | set(observation["bar"]) | set(observation["untaken"])
    seen.update(play["card"] for play in observation["trick"])
    for taken in observation["taken"]:
        seen.update(taken)
    return seen


def opponent_voids(observation: dict) -> set[str]:
    """Suits the opponent cannot hold: it played another suit to a trick of that suit."""
    opponent = 1 - observation["seat"]
    voids, led_suit = set(), None
    for entry in observation["history"]:
        action = entry.get("action", {})
        if "bar" in action:
            led_suit = suit(action["bar"])
        elif "play" in action and entry["seat"] == opponent and suit(action["play"]) != led_suit:
            voids.add(led_suit)
    return voids


def bar_at_deal(observation: dict) -> list[str]:
    """A bar the deal could have started with: the bar cards played, put back at their ends.

    A leader takes one of the two cards nearest her end; putting it back at the very end
    keeps it reachable and leaves the rest in order, so replaying the deal gives today's bar.
    """
    bar = list(observation["bar"])
    for entry in reversed(observation["history"]):
        card = entry.get("action", {}).get("bar")
        if card is None:
            continue
        if entry["seat"] == observation["dealer"]:
            bar.append(card)
        else:
            bar.insert(0, card)
    return bar


def hand_at_deal(observation: dict, seat: int, hand: list[str]) -> list[str]:
    """``hand`` (``seat``'s cards now) with the cards it played this deal."""
    played = [
        entry["action"]["play"]
        for entry in observation["history"]
        if entry["seat"] == seat and "play" in entry.get("action", {})
    ]
    return hand + played


def sample_opponent_hand(observation: dict, rng: random.Random) -> tuple[list[str], list[str]]:
    """The opponent's hand drawn from the unseen cards it may hold, and the other unseen."""
    seen = seen_cards(observation)
    unseen = [card for card in GAME.deck if card not in seen]
    voids = opponent_voids(observation)
    possible = [card for card in unseen if suit(card) not in voids]
    hand = rng.sample(possible, observation["opponent_hand_size"])
    in_hand = set(hand)
    return hand, [card for card in unseen if card not in in_hand]


def determinise(observation: dict, rng: random.Random) -> State | None:
    """A state of a fresh match that matches ``observation`` with sampled hidden cards.

    The simulated deal is the match's first, whose dealer is seat 1; it plays the real deal
    with the seats swapped when the real dealer is seat 0. ``None`` when the sample
    contradicts the history (the engine refuses to replay it).
    """
    me, dealer = observation["seat"], observation["dealer"]
    opponent_hand, undealt = sample_opponent_hand(observation, rng)
    hands = {me: hand_at_deal(observation, me, list(observation["hand"]))}
    hands[1 - me] = hand_at_deal(observation, 1 - me, opponent_hand)
    order = hands[1 - dealer] + hands[dealer] + bar_at_deal(observation) + undealt
    state = GAME.new_match(0, {**SIMULATION_OPTIONS, "decks": [order]})
    try:
        for entry in observation["history"]:
            if "action" in entry:
                state = GAME.apply(state, entry["action"])
    except IllegalAction:
        return None
    return state if state.to_play == simulated_seat(observation) else None


def simulated_seat(observation: dict) -> int:
    """Where this seat sits in the simulated deal, whose dealer is always seat 1."""
    seat = observation["seat"]
    return seat if observation["dealer"] == 1 else 1 - seat


def rollout_value(state: State, seat: int, rng: random.Random) -> int:
    """``seat``'s deal score (negative when the other seat scores) after random play."""
    while state.deal_number == 1:
        state = GAME.apply(state, rng.choice(state.legal_actions()))
    scores = state.scores
    return scores[seat] - scores[1 - seat]


def choose(observation: dict, budget: float, rng: random.Random) -> dict:
    """The legal action with the best total score over the samples tried in ``budget`` s."""
    legal = observation["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    deadline = time.monotonic() + budget
    seat = simulated_seat(observation)
    totals = [0] * len(legal)
    # At least one sample, however small the budget.
    while (state := sample(observation, rng)) is not None:
        # Every action is tried in the same sample: their differences are less noisy.
        for index, action in enumerate(legal):
            totals[index] += rollout_value(GAME.apply(state, action), seat, rng)
        if time.monotonic() >= deadline:
            break
    return legal[max(range(len(legal)), key=totals.__getitem__)]


def sample(observation: dict, rng: random.Random) -> State | None:
    """A determinisation, redrawn while a draw contradicts the history (rarely, if ever)."""
    for _ in range(SAMPLE_ATTEMPTS):
        state = determinise(observation, rng)
        if state is not None:
            return state
    return None


def decision_budget(decision_seconds: float, time_left: float, match_began: float) -> float:
    """Seconds to think now: a share of the limit, less as the match's CPU runs low.
    ``match_began`` is the process time at the match's ``start``: a process plays a series."""
    cpu_left = CPU_CEILING - (time.process_time() - match_began)
    return max(0.0, min(BUDGET_SHARE * decision_seconds, time_left / 2, cpu_left / DECISIONS_AHEAD))


def main() -> None:
    rng = random.Random()
    decision_seconds = 1.0
    match_began = time.process_time()
    # A series: one start ... end after another, until the input ends. The engine loaded
    # above is loaded once for all of them.
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            decision_seconds = message["limits"]["decision_seconds"]
            match_began = time.process_time()
            print(json.dumps({"type": "ready", "series": True}), flush=True)
        elif message["type"] == "decide":
            budget = decision_budget(decision_seconds, message["time_left"], match_began)
            action = choose(message["observation"], budget, rng)
            print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
