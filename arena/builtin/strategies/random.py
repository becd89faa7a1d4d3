"""Any game: a uniformly random legal action."""

from __future__ import annotations

import random


def choose(observation: dict, rng: random.Random) -> dict:
    return rng.choice(observation["legal_actions"])
