"""Writes of the games app: creating matches, appending to their event logs, recording results.

The event log is append-only and hash-chained (``games.events``). Appends are idempotent:
an event already stored with the same content is a no-op, with other content an
``EventConflict``. Concurrent writers are settled by the unique ``(match, seq)`` constraint,
not by locks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from time import monotonic
from types import TracebackType
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from .events import (
    GENESIS_HASH,
    EventConflict,
    EventSequenceGap,
    EventType,
    canonical_json,
    chain_events,
)
from .models import Match, MatchEvent
from .rules import get_game

_EVENT_TYPES = frozenset(EventType)


@dataclass(frozen=True, slots=True)
class NewEvent:
    seq: int
    type: str
    payload: Any


def match_create(*, game_id: str, seed: int, options: Mapping[str, Any] | None = None) -> Match:
    """A pending match; ``ValueError`` before anything is stored for a bad game, seed or option."""
    game = get_game(game_id)
    options = dict(options or {})
    game.new_match(seed, options)
    canonical_json(options)
    return Match.objects.create(
        game=game_id, rules_version=game.rules_version, seed=seed, options=options
    )


def match_started_payload(*, match: Match, players: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The payload of a match's ``match_started`` event; ``players`` lists seat 0 then seat 1."""
    if [player.get("seat") for player in players] != [0, 1]:
        raise ValueError(f"players must be seat 0 then seat 1, got {players!r}")
    return {
        "game": match.game,
        "rules_version": match.rules_version,
        "seed": match.seed,
        "options": match.options,
        "players": [dict(player) for player in players],
    }


def match_events_append(
    *, match: Match, events: Iterable[NewEvent | tuple[int, str, Any]]
) -> list[MatchEvent]:
    """Append consecutive events to ``match``'s log in one transaction; return those stored now.

    ``EventSequenceGap`` if the batch does not continue the log; ``EventConflict`` if a seq
    is already stored with other content (then nothing of the batch is stored).
    """
    batch = _checked_batch(events)
    if not batch:
        return []
    try:
        with transaction.atomic():
            return _append(match, batch)
    except IntegrityError:
        # Another writer stored some of these seqs between our read and our insert: now that
        # its rows are committed, the second pass compares against them.
        with transaction.atomic():
            return _append(match, batch)


def _checked_batch(events: Iterable[NewEvent | tuple[int, str, Any]]) -> list[NewEvent]:
    batch = [event if isinstance(event, NewEvent) else NewEvent(*event) for event in events]
    for previous, event in zip(batch, batch[1:], strict=False):
        if event.seq != previous.seq + 1:
            raise EventSequenceGap(f"seq {event.seq} follows seq {previous.seq} in the batch")
    for event in batch:
        if event.type not in _EVENT_TYPES:
            raise ValueError(f"unknown event type {event.type!r} at seq {event.seq}")
    if batch and (type(batch[0].seq) is not int or batch[0].seq < 0):
        raise EventSequenceGap(f"seqs start at 0, got {batch[0].seq!r}")
    return batch


def _append(match: Match, batch: list[NewEvent]) -> list[MatchEvent]:
    next_seq, prev_hash = _log_end(match)
    if batch[0].seq > next_seq:
        raise EventSequenceGap(
            f"match {match.pk}: seq {batch[0].seq} given, the log continues at seq {next_seq}"
        )
    _check_already_stored(match, [event for event in batch if event.seq < next_seq])
    records = chain_events(
        ((event.seq, event.type, event.payload) for event in batch if event.seq >= next_seq),
        prev_hash,
    )
    now = timezone.now()
    rows = [
        MatchEvent(
            match_id=match.pk, seq=seq, type=type, payload=payload, hash=hash, created_at=now
        )
        for seq, type, payload, hash in records
    ]
    return MatchEvent.objects.bulk_create(rows)


def _log_end(match: Match) -> tuple[int, str]:
    """The seq the match's log continues at, and the hash the next event chains from."""
    last = match.events.order_by("-seq").values_list("seq", "hash").first()
    return (0, GENESIS_HASH) if last is None else (last[0] + 1, last[1])


def _check_already_stored(match: Match, events: list[NewEvent]) -> None:
    if not events:
        return
    stored = {
        seq: (type, payload)
        for seq, type, payload in match.events.filter(
            seq__gte=events[0].seq, seq__lte=events[-1].seq
        ).values_list("seq", "type", "payload")
    }
    for event in events:
        stored_type, stored_payload = stored[event.seq]
        if stored_type != event.type or canonical_json(stored_payload) != canonical_json(
            event.payload
        ):
            raise EventConflict(
                f"match {match.pk}: seq {event.seq} is already stored with other content"
            )


class MatchLeaseLost(Exception):
    """The worker no longer holds the match: the scheduler declared it dead and replaced it."""


def match_lease_renew(*, match_id: int, worker: str, seconds: float) -> None:
    """Extend the claim of ``worker`` on its running match; ``MatchLeaseLost`` if it has none."""
    # Conditional update: a match the scheduler already declared dead must stay dead.
    renewed = Match.objects.filter(
        id=match_id, status=Match.Status.RUNNING, claimed_by=worker
    ).update(lease_expires_at=timezone.now() + timedelta(seconds=seconds))
    if renewed != 1:
        raise MatchLeaseLost(f"match {match_id} is no longer claimed by {worker}")


def match_lease_expire(*, match_id: int, now: datetime) -> bool:
    """Mark a running match whose lease ran out before ``now`` failed; True if this call did."""
    # Conditional update: a runner renewing its lease at this very moment keeps its match.
    expired = Match.objects.filter(
        id=match_id, status=Match.Status.RUNNING, lease_expires_at__lt=now
    ).update(status=Match.Status.FAILED, finished_at=now)
    return expired == 1


_FLUSHED_AT_ONCE = frozenset({EventType.MATCH_STARTED, EventType.FORFEIT, EventType.MATCH_FINISHED})


class MatchEventWriter:
    """Numbers a running match's events and appends them in batches of ``flush_every``.

    The runner emits ``(type, payload)``; the writer assigns seqs from ``next_seq``. Events
    that open or close a match are flushed at once, so the log shows a started or finished
    match as soon as it is one. Leaving a ``with`` block flushes, also on an error: the
    events written so far are a true prefix of the match.
    """

    def __init__(
        self,
        match: Match,
        *,
        flush_every: int = 64,
        next_seq: int = 0,
        lease_seconds: float | None = None,
    ) -> None:
        if flush_every < 1:
            raise ValueError(f"flush_every must be at least 1, got {flush_every!r}")
        self.match = match
        self.flush_every = flush_every
        self.next_seq = next_seq
        self._pending: list[NewEvent] = []
        self._lease_seconds = lease_seconds
        self._renew_at = monotonic() + lease_seconds / 3 if lease_seconds else math.inf

    def emit(self, type: str, payload: Any) -> int:
        """Queue one event and return its seq; renew the match's lease when it is due."""
        if monotonic() >= self._renew_at:
            self._renew_lease()
        seq = self.next_seq
        self._pending.append(NewEvent(seq, type, payload))
        self.next_seq += 1
        if len(self._pending) >= self.flush_every or type in _FLUSHED_AT_ONCE:
            self.flush()
        return seq

    def flush(self) -> None:
        if self._pending:
            match_events_append(match=self.match, events=self._pending)
            self._pending = []

    def _renew_lease(self) -> None:
        match_lease_renew(
            match_id=self.match.pk, worker=self.match.claimed_by, seconds=self._lease_seconds
        )
        self._renew_at = monotonic() + self._lease_seconds / 3

    def __enter__(self) -> MatchEventWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # A match declared dead gets nothing more in its log: its replacement is played.
        if not isinstance(exc, MatchLeaseLost):
            self.flush()


def match_event_writer(
    *, match: Match, players: Sequence[Mapping[str, Any]], flush_every: int = 64
) -> MatchEventWriter:
    """A writer for a match about to be played, its ``match_started`` event already stored.

    For a match a worker has claimed, the writer renews the claim's lease as the match goes
    on (every third of ``BAIZE_MATCH_LEASE_SECONDS``), and raises ``MatchLeaseLost`` if the
    scheduler declared the match dead meanwhile.
    """
    lease_seconds = settings.BAIZE_MATCH_LEASE_SECONDS if match.claimed_by else None
    writer = MatchEventWriter(match, flush_every=flush_every, lease_seconds=lease_seconds)
    writer.emit(EventType.MATCH_STARTED, match_started_payload(match=match, players=players))
    return writer
