"""Snag match logs for the event-log tests, written here from the engine in the contracts' format.

Deliberately independent of ``ops.game_benchmarks``: the tests check the replay against logs
built from the contract's text, not against another piece of production code.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games.rules import State, get_game

SNAG = get_game("snag")
PLAYERS = [
    {"seat": 0, "bot": "snag/random", "version_id": 3, "content_hash": "a" * 64},
    {"seat": 1, "bot": "snag/random", "version_id": 4, "content_hash": "b" * 64},
]


@dataclass
class PlayedMatch:
    #: ``(seq, type, payload)`` in log order.
    events: list[tuple[int, str, Any]]
    #: ``states[n]`` is the state after ``n`` decisions.
    states: list[State]

    def seqs_of(self, event_type: str) -> list[int]:
        return [seq for seq, kind, _ in self.events if kind == event_type]


def play_snag(
    seed: int = 7, options: dict[str, Any] | None = None, rng_seed: int = 0
) -> PlayedMatch:
    """A whole Snag match played with random legal actions, logged as the runner would."""
    options = dict(options or {})
    rng = random.Random(rng_seed)
    state = SNAG.new_match(seed, options)
    payloads: list[tuple[str, Any]] = [("match_started", _started(seed, options))]
    payloads += _shuffles(state, 0)
    states = [state]
    while state.to_play is not None:
        seat, action = state.to_play, rng.choice(state.legal_actions())
        known = len(state.orders)
        state = SNAG.apply(state, action)
        payloads.append(
            ("decision", {"seat": seat, "action": action, "think_us": rng.randrange(9999)})
        )
        payloads += _shuffles(state, known)
        states.append(state)
    payloads.append(
        ("match_finished", {"winner": state.winner, "scores": state.scores, "reason": "played"})
    )
    events = [(seq, kind, payload) for seq, (kind, payload) in enumerate(payloads)]
    return PlayedMatch(events, states)


def _started(seed: int, options: dict[str, Any]) -> dict[str, Any]:
    return {
        "game": "snag",
        "rules_version": SNAG.rules_version,
        "seed": seed,
        "options": options,
        "players": PLAYERS,
    }


def _shuffles(state: State, known: int) -> list[tuple[str, Any]]:
    return [
        ("shuffle", {"k": k, "order": list(state.orders[k])})
        for k in range(known, len(state.orders))
    ]


def renumbered(
    events: list[tuple[str, Any]] | list[tuple[int, str, Any]],
) -> list[tuple[int, str, Any]]:
    """``events`` with seqs 0, 1, 2, ... again, after some were added or removed."""
    return [(seq, *event[-2:]) for seq, event in enumerate(events)]
