"""Event-log measurements for ``manage.py bench``: functions that return a rate, print nothing.

The logs measured are random playouts written in the contracts' format, so their payloads
have the sizes of real matches.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from games.events import EventRecord, EventType, ResultReason, chain_events
from games.replay import replay
from games.rules import get_game

# The engine and replay rates are per core: counted in this process's CPU time, they do not
# drop when other processes share the machine (on a quiet one, CPU and wall time agree).
_cpu_seconds = time.process_time

_BENCH_PLAYERS = [
    {"seat": 0, "bot": "bench/random", "version_id": None, "content_hash": ""},
    {"seat": 1, "bot": "bench/random", "version_id": None, "content_hash": ""},
]


def random_match_events(
    *,
    game_id: str,
    seed: int,
    options: Mapping[str, Any] | None = None,
    rng: random.Random,
    max_events: int | None = None,
) -> list[tuple[str, Any]]:
    """The ``(type, payload)`` events of a match played with random legal actions.

    With ``max_events`` the log stops there, as the log of a running match would.
    """
    game = get_game(game_id)
    options = dict(options or {})
    state = game.new_match(seed, options)
    started = {"game": game_id, "rules_version": game.rules_version, "seed": seed}
    events = [(EventType.MATCH_STARTED, {**started, "options": options, "players": _BENCH_PLAYERS})]
    events += _new_shuffles(state, 0)
    limit = max_events if max_events is not None else float("inf")
    while state.to_play is not None and len(events) < limit:
        seat, action = state.to_play, rng.choice(state.legal_actions())
        shuffled = len(state.orders)
        events.append((EventType.DECISION, {"seat": seat, "action": action, "think_us": 1000}))
        state = game.apply(state, action)
        events += _new_shuffles(state, shuffled)
    if state.winner is not None:
        result = {"winner": state.winner, "scores": state.scores, "reason": ResultReason.PLAYED}
        events.append((EventType.MATCH_FINISHED, result))
    return events[:max_events]


def _new_shuffles(state: Any, known: int) -> list[tuple[str, Any]]:
    return [
        (EventType.SHUFFLE, {"k": k, "order": list(state.orders[k])})
        for k in range(known, len(state.orders))
    ]


def random_match_log(
    *, game_id: str, seed: int, options: Mapping[str, Any] | None = None, rng: random.Random
) -> list[EventRecord]:
    """A whole random match as a hash-chained log, ready for replay."""
    events = random_match_events(game_id=game_id, seed=seed, options=options, rng=rng)
    return chain_events((seq, type, payload) for seq, (type, payload) in enumerate(events))


def replay_events_per_second(events: Sequence[EventRecord], *, min_seconds: float = 0.5) -> float:
    """How many events of ``events`` replay folds and hash-checks per second of CPU time."""
    return _per_cpu_second(lambda: replay(events), len(events), min_seconds)


def _per_cpu_second(run: Callable[[], object], items: int, min_seconds: float) -> float:
    """Items per second of CPU time of ``run``, which handles ``items`` each time, repeated
    until ``min_seconds`` have passed."""
    rounds, started = 0, _cpu_seconds()
    while True:
        run()
        rounds += 1
        elapsed = _cpu_seconds() - started
        if elapsed >= min_seconds:
            return rounds * items / elapsed


def engine_throughput(game_id: str, *, seconds: float = 1.0, seed: int = 0) -> dict[str, float]:
    """Random matches played through the facade for about ``seconds`` of CPU time: matches
    and decisions per second.

    A decision is one ``legal_actions()`` and one ``apply()``; the choice itself is one call
    to ``random()``, so the loop measures the engine rather than the chooser.
    """
    game = get_game(game_id)
    rng = random.Random(seed)
    choose = rng.random
    matches = decisions = 0
    started = _cpu_seconds()
    while _cpu_seconds() - started < seconds:
        state = game.new_match(seed + matches)
        while state.to_play is not None:
            legal = state.legal_actions()
            state = game.apply(state, legal[int(choose() * len(legal))])
            decisions += 1
        matches += 1
    elapsed = _cpu_seconds() - started
    return {"matches_per_second": matches / elapsed, "decisions_per_second": decisions / elapsed}


def engine_fold_events_per_second(
    events: Sequence[EventRecord], *, min_seconds: float = 0.5
) -> float:
    """The floor of replay: the engine alone applying the log's decisions to a fresh match,
    no parsing, no hash checks, counted per event of the whole log (CPU time)."""
    started_payload = events[0].payload
    game = get_game(started_payload["game"])
    actions = [payload["action"] for _, type, payload, _ in events if type == EventType.DECISION]
    seed, options = started_payload["seed"], started_payload["options"]

    def fold() -> None:
        state = game.new_match(seed, options)
        for action in actions:
            state = game.apply(state, action)

    return _per_cpu_second(fold, len(events), min_seconds)


def chain_events_per_second(events: Sequence[EventRecord], *, min_seconds: float = 0.5) -> float:
    """The hashing floor of storing a log: events per second through ``chain_events`` alone."""
    triples = [(seq, type, payload) for seq, type, payload, _ in events]
    return _per_cpu_second(lambda: chain_events(triples), len(events), min_seconds)


def bare_loop_decisions_per_second(*, seconds: float = 1.0, seed: int = 0) -> float:
    """The floor of the engine's decision rate: the benchmark loop's own work (a list, one
    ``random()``, an index) without the engine, per second of CPU time."""
    rng = random.Random(seed)
    choose = rng.random
    legal = [{"play": "2C"}, {"play": "7H"}, {"play": "QS"}]
    decisions = 0
    started = _cpu_seconds()
    while _cpu_seconds() - started < seconds:
        for _ in range(1000):
            action = legal[int(choose() * len(legal))]
            decisions += 1
    del action
    return decisions / (_cpu_seconds() - started)
