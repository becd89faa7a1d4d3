"""Reads of the games app: matches, their event logs, and replays of those logs."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from django.db.models import QuerySet

from games.events import EventRecord, EventType
from games.replay import FailureKind, Position, ReplayFailure, ReplayResult, replay, state_at

from .models import Match, MatchEvent, MatchSeat, SeatStderr


def match_events(*, match: Match) -> QuerySet[MatchEvent]:
    """The match's events in log order."""
    return MatchEvent.objects.filter(match=match).order_by("seq")


def match_event_records(*, match: Match) -> list[EventRecord]:
    """The match's log in the shape replay reads, without building model instances."""
    rows = match_events(match=match).values_list("seq", "type", "payload", "hash")
    return [EventRecord(*row) for row in rows]


def match_replay(*, match: Match) -> ReplayResult:
    """Replay the match's log, and check that the match's own row agrees with it."""
    result = replay(match_event_records(match=match))
    record_failures = _record_failures(match, result)
    if not record_failures:
        return result
    return dataclasses.replace(result, failures=result.failures + tuple(record_failures))


def match_state_at(*, match: Match, step: int) -> Position:
    """The position after ``step`` decisions of the match (``games.replay.state_at``)."""
    return state_at(match_event_records(match=match), step)


def matches_to_replay(*, match_ids: Iterable[int] | None = None) -> Iterator[Match]:
    """Matches in id order, read from the database a chunk at a time."""
    matches = Match.objects.order_by("id")
    if match_ids is not None:
        matches = matches.filter(id__in=list(match_ids))
    return matches.iterator(chunk_size=200)


def _record_failures(match: Match, result: ReplayResult) -> list[ReplayFailure]:
    """A finished match's result fields must be the ones its log ends with."""
    if match.status != Match.Status.FINISHED:
        return []
    if not result.finished or result.outcome is None:
        return [_record_failure("the match is marked finished but its log has no result")]
    outcome = result.outcome
    stored = (match.winner, match.scores, match.result_reason)
    if stored != (outcome.winner, outcome.scores, outcome.reason):
        return [
            _record_failure(
                f"the match row says winner {match.winner}, scores {match.scores},"
                f" reason {match.result_reason!r}; its log gives {outcome.as_payload()!r}"
            )
        ]
    return []


def _record_failure(message: str) -> ReplayFailure:
    return ReplayFailure(None, FailureKind.RECORD, message)


def match_decisions(*, match: Match) -> list[dict]:
    """The payloads of the match's decision events, in order: decision ``n`` is step ``n + 1``."""
    rows = (
        match_events(match=match).filter(type=EventType.DECISION).values_list("payload", flat=True)
    )
    return list(rows)


def seat_stderr(*, seat: MatchSeat) -> str:
    """What the seat's bot wrote to stderr in its match ("" if nothing was kept)."""
    return SeatStderr.objects.filter(seat=seat).values_list("text", flat=True).first() or ""
