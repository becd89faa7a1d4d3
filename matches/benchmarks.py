"""Event-log storage measurements for ``manage.py bench``: functions that return a rate."""

from __future__ import annotations

import random
import time
from typing import Any

from django.db import transaction

from games.benchmarks import random_match_events

from . import services
from .models import Match
from .services import MatchEventWriter, match_create


def append_events_per_second(
    *, events: int = 5000, flush_every: int = 64, seed: int = 1, keep: bool = False
) -> float:
    """Events per second appended, through the runner's writer, to a fresh match's log.

    The match is a long random Snag match cut at ``events`` events. Unless ``keep``, it all
    happens in one transaction rolled back at the end, so the append-only log keeps no
    benchmark match (then each batch is a savepoint, not a commit).
    """
    log = random_match_events(
        game_id="snag",
        seed=seed,
        options={"target": 10_000},
        rng=random.Random(seed),
        max_events=events,
    )
    if keep:
        return _timed_append(log, seed, flush_every)
    with transaction.atomic():
        rate = _timed_append(log, seed, flush_every)
        transaction.set_rollback(True)
    return rate


def _timed_append(log: list[tuple[str, Any]], seed: int, flush_every: int) -> float:
    match = match_create(game_id="snag", seed=seed, options=log[0][1]["options"])
    # A benchmark match must never be picked up and played.
    services.match_fail(match_id=match.pk, statuses=[Match.Status.PENDING])
    started = time.perf_counter()
    with MatchEventWriter(match, flush_every=flush_every) as writer:
        for type, payload in log:
            writer.emit(type, payload)
    return len(log) / (time.perf_counter() - started)
