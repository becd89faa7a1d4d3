"""Writes of the games app: creating matches, appending to their event logs, recording results.

The event log is append-only and hash-chained (``games.events``). Appends are idempotent:
an event already stored with the same content is a no-op, with other content an
``EventConflict``. Concurrent writers are settled by the unique ``(match, seq)`` constraint,
not by locks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

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


_FLUSHED_AT_ONCE = frozenset({EventType.MATCH_STARTED, EventType.FORFEIT, EventType.MATCH_FINISHED})


class MatchEventWriter:
    """Numbers a running match's events and appends them in batches of ``flush_every``.

    The runner emits ``(type, payload)``; the writer assigns seqs from ``next_seq``. Events
    that open or close a match are flushed at once, so the log shows a started or finished
    match as soon as it is one. Leaving a ``with`` block flushes, also on an error: the
    events written so far are a true prefix of the match.
    """

    def __init__(self, match: Match, *, flush_every: int = 64, next_seq: int = 0) -> None:
        if flush_every < 1:
            raise ValueError(f"flush_every must be at least 1, got {flush_every!r}")
        self.match = match
        self.flush_every = flush_every
        self.next_seq = next_seq
        self._pending: list[NewEvent] = []

    def emit(self, type: str, payload: Any) -> int:
        """Queue one event and return its seq."""
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

    def __enter__(self) -> MatchEventWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.flush()


def match_event_writer(
    *, match: Match, players: Sequence[Mapping[str, Any]], flush_every: int = 64
) -> MatchEventWriter:
    """A writer for a match about to be played, its ``match_started`` event already stored."""
    writer = MatchEventWriter(match, flush_every=flush_every)
    writer.emit(EventType.MATCH_STARTED, match_started_payload(match=match, players=players))
    return writer
