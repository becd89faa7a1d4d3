"""Event-log storage measurements for ``manage.py bench``: functions that return a rate."""

from __future__ import annotations

import random
import time
from typing import Any

from django.db import connection, transaction

from arena.referee import Limits, referee_match
from arena.runner import pinned_to_cpu
from games.events import batch_events, canonical_json
from games.rules import get_game
from matches import services
from matches.models import Match, MatchEventBatch
from matches.services import MatchEventWriter, match_create, match_event_writer
from ops.bot_benchmarks import MatchBots, benchmark_players
from ops.game_benchmarks import random_match_events


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


#: The seats of the stored benchmark matches, as ``match_started`` names them.
_BENCH_PLAYERS = [
    {"seat": seat, "bot": "bench/random", "version_id": None, "content_hash": ""} for seat in (0, 1)
]


def stored_snag_matches_per_second(*, matches: int, cpu: int | None = None) -> float:
    """Snag matches per second played as ``ops.bot_benchmarks``' in-process row plays them (the
    referee, random against random, seeds 0, 1, 2, ...), each stored as ``match_play``
    stores it: claimed with its first event, logged through the writer, finished with its
    result.

    The matches are created before the clock starts, as a tournament's schedule creates
    them; they stay in the (append-only) log, so measure in a scratch database.
    """
    game = get_game("snag")
    pending = [match_create(game_id="snag", seed=seed) for seed in range(matches)]
    with pinned_to_cpu(cpu):
        started = time.perf_counter()
        for match in pending:
            players = benchmark_players(MatchBots.IN_PROCESS, match.seed)
            writer = match_event_writer(match=match, players=_BENCH_PLAYERS, claim_for="bench")
            with writer:
                referee_match(
                    game,
                    game.new_match(match.seed),
                    players,
                    limits=Limits(),
                    emit=writer.emit,
                    on_idle=writer.idle,
                )
        return matches / (time.perf_counter() - started)


def event_log_bytes_per_match() -> dict[str, float]:
    """On PostgreSQL, the events' table (their batches) with its indexes (and TOAST) in bytes
    per finished match, beside the bytes of what the logs hold: each event's canonical JSON
    (``{"seq", "type", "payload"}``, as hashed) and its 32-byte digest.

    Every match in the database must be finished: measure in a scratch database.
    """
    table = MatchEventBatch._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size(%s)", [table])
        (on_disk,) = cursor.fetchone()
    finished = Match.objects.filter(status=Match.Status.FINISHED).count()
    if finished != Match.objects.count() or not finished:
        raise ValueError("measure the log's bytes in a database of finished matches only")
    rows = MatchEventBatch.objects.values_list("seq", "events").iterator(chunk_size=200)
    content = sum(
        len(canonical_json({"seq": seq + i, "type": type, "payload": payload}).encode()) + 32
        for seq, data in rows
        for i, (type, payload) in enumerate(batch_events(bytes(data)))
    )
    return {"bytes_per_match": on_disk / finished, "content_per_match": content / finished}
