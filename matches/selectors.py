"""Reads of matches: their event logs, replays of those logs, and each viewer's view of them."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Sum, Window
from django.db.models.functions import RowNumber

from bots.models import Bot, BotVersion
from errors import DomainError, NotAllowed
from games.events import GENESIS_HASH, EventRecord, EventType, batch_events, batch_records
from games.replay import (
    FailureKind,
    Position,
    ReplayError,
    ReplayFailure,
    ReplayResult,
    replay,
    state_at,
)
from games.rules import GAMES

from .models import Match, MatchEventBatch, MatchSeat, SeatStderr
from .redaction import Lens, visible_events, visible_steps
from .visibility import MatchAccess


def match_runs_uploaded_code(*, match_id: int) -> bool:
    return MatchSeat.objects.filter(match_id=match_id, version__builtin="").exists()


@dataclasses.dataclass(frozen=True)
class MatchOutcome:
    """A finished match's result as its log's ``match_finished`` event records it."""

    #: The winning seat, or None for a draw.
    winner: int | None
    #: Match points ``(seat 0, seat 1)``.
    scores: tuple[int, int]


def match_outcomes_from_logs(*, match_ids: Iterable[int]) -> dict[int, MatchOutcome]:
    """The outcome of each of ``match_ids`` whose log has ended; the log, not the row, is
    the record a result is read from."""
    return {
        match_id: MatchOutcome(payload["winner"], tuple(payload["scores"]))
        for match_id, tail in _log_tails(match_ids, events=1).items()
        for type, payload in tail
        if type == EventType.MATCH_FINISHED
    }


def match_forfeits(*, match_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """The payload of the forfeit of each of ``match_ids`` whose log holds one, as stored.

    A forfeit ends play: only ``match_finished`` may follow it, so it is one of the last two
    events of its log, which is all that is read of each log.
    """
    return {
        match_id: payload
        for match_id, tail in _log_tails(match_ids, events=2).items()
        for type, payload in tail
        if type == EventType.FORFEIT
    }


def _log_tails(match_ids: Iterable[int], *, events: int) -> dict[int, list[tuple[str, Any]]]:
    """The type and payload of the last ``events`` events (at most two) of each of these
    matches' logs, in one query: each log's last two batches, of which only the last
    events' lines are parsed (``games.events.batch_events``)."""
    if events > 2:
        raise ValueError(f"a log's last two batches hold its last two events, not {events}")
    latest = Window(RowNumber(), partition_by=[F("match_id")], order_by=F("seq").desc())
    rows = (
        MatchEventBatch.objects.filter(match_id__in=list(match_ids))
        .annotate(latest=latest)
        .filter(latest__lte=events)
        .order_by("match_id", "seq")
        .values_list("match_id", "events")
    )
    tails: dict[int, list[tuple[str, Any]]] = {}
    for match_id, data in rows:
        tail = tails.setdefault(match_id, [])
        tail[:] = (tail + batch_events(data, last=events))[-events:]
    return tails


#: A match's result from one seat's side, as ``match_list`` filters by it.
RESULTS = ("won", "lost", "drawn")


def match_list(
    *,
    owner: User | None,
    version_id: int | None = None,
    opponent_bot_id: int | None = None,
    result: str | None = None,
) -> QuerySet[Match]:
    """Matches newest first; with ``owner``, those where a version of one of its bots sits.

    The owner's matches may be narrowed, all from the side of a seat of the owner's: to
    those where that seat holds the version ``version_id``, where the other seat holds a
    version of the bot ``opponent_bot_id``, and those that seat ``won``, ``lost`` or
    ``drawn`` (finished without a winner). A match between two of the owner's bots is kept
    when either of its seats fits.
    """
    matches = Match.objects.prefetch_related("seats__version__bot").order_by("-id")
    if owner is None:
        return matches
    if version_id is None and opponent_bot_id is None and result is None:
        return matches.filter(seats__version__bot__owner=owner).distinct()
    from_either_seat = None
    for seat in (0, 1):
        mine = MatchSeat.objects.filter(match=OuterRef("pk"), seat=seat, version__bot__owner=owner)
        if version_id is not None:
            mine = mine.filter(version_id=version_id)
        fits = Q(Exists(mine))
        if opponent_bot_id is not None:
            theirs = MatchSeat.objects.filter(
                match=OuterRef("pk"), seat=1 - seat, version__bot_id=opponent_bot_id
            )
            fits &= Q(Exists(theirs))
        if result is not None:
            fits &= _result_of_seat(seat, result)
        from_either_seat = fits if from_either_seat is None else from_either_seat | fits
    return matches.filter(from_either_seat)


def _result_of_seat(seat: int, result: str) -> Q:
    finished = Q(status=Match.Status.FINISHED)
    if result == "won":
        return finished & Q(winner=seat)
    if result == "lost":
        return finished & Q(winner=1 - seat)
    if result == "drawn":
        return finished & Q(winner__isnull=True)
    raise ValueError(f"unknown result {result!r}; known: {RESULTS}")


def owns_version(*, owner: User, version_id: int) -> bool:
    return BotVersion.objects.filter(pk=version_id, bot__owner=owner).exists()


def bot_exists(*, bot_id: int) -> bool:
    return Bot.objects.filter(pk=bot_id).exists()


def match_event_records(*, match: Match) -> list[EventRecord]:
    """The match's log in the shape replay reads, in seq order, each payload whole and each
    hash as its hex digits.

    Each batch's hashes are computed from its events, chained from the hash the batch
    before it stores, except its last, which is the one it stores (``games.events.
    batch_records``): a batch changed since it was written fails the chain's check there.
    """
    rows = MatchEventBatch.objects.filter(match_id=match.pk).order_by("seq")
    records: list[EventRecord] = []
    prev_hash = GENESIS_HASH
    for seq, last_hash, data in rows.values_list("seq", "hash", "events"):
        records += batch_records(seq, batch_events(data), prev_hash, last_hash)
        prev_hash = last_hash
    return records


def match_log_end(*, match: Match) -> tuple[int, str] | None:
    """The seq and hash of the last event of the match's log; None while it is empty."""
    rows = MatchEventBatch.objects.filter(match_id=match.pk).order_by("-seq")
    return rows.values_list("last_seq", "hash").first()


def match_event_count(*, match_id: int, type: str | None = None) -> int:
    """How many events the match's log holds (of ``type``, if given)."""
    rows = MatchEventBatch.objects.filter(match_id=match_id)
    if type is None:
        return rows.aggregate(events=Sum(F("last_seq") - F("seq") + 1))["events"] or 0
    return sum(1 for kind, _ in _log_events(rows) if kind == type)


def _log_events(rows: QuerySet[MatchEventBatch]) -> list[tuple[str, Any]]:
    """The type and payload of each event of these batches, in seq order, without hashes."""
    return [
        event
        for data in rows.order_by("seq").values_list("events", flat=True)
        for event in batch_events(data)
    ]


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
    events = _log_events(MatchEventBatch.objects.filter(match_id=match.pk))
    return [payload for type, payload in events if type == EventType.DECISION]


def seat_stderr(*, seat: MatchSeat) -> str:
    """What the seat's bot wrote to stderr in its match ("" if nothing was kept)."""
    return SeatStderr.objects.filter(seat=seat).values_list("text", flat=True).first() or ""


def match_score_parts_visible(*, access: MatchAccess) -> list[dict[str, Any]] | None:
    """The finished parts of the match that score points of their own (a Rounds stage:
    ``Game.score_parts``), as far as its log replays; None for a game that reports none, and
    wherever the view withholds the match's moves (the same rule as its steps). A part's
    points are public once it ends: they count cards both seats saw taken."""
    game = GAMES.get(access.match.game)
    if game is None or game.score_part is None or access.lens.moves_withheld:
        return None
    state = replay(match_event_records(match=access.match)).state
    return [] if state is None else game.score_parts(state)


def match_events_visible(*, access: MatchAccess) -> list[dict[str, Any]]:
    """The match's log as ``access`` shows it (``matches.redaction``)."""
    records = match_event_records(match=access.match)
    if access.lens.sees_everything:
        return [record._asdict() for record in records]
    return visible_events(records, access.lens)


def match_step_visible(*, access: MatchAccess, step: int) -> dict[str, Any]:
    """The match replayed to ``step`` decisions, as ``access`` shows it.

    ``NotAllowed`` for a match whose moves are withheld (over while its twin plays),
    ``DomainError`` for a step past the log's end or a log that does not replay.
    """
    if access.lens.moves_withheld:
        raise NotAllowed(
            f"match {access.match.pk} is over, but a match dealt the same cards is still being"
            " played: its moves are shown once that match finishes"
        )
    body = _visible_step(access.match, access.lens, step)
    return {**body, "view": access.view.value}


#: The steps folded so far of the last few (match, log end, lens) asked for, with the fold
#: that goes on from there: a viewer stepping through a match costs one fold, not one per
#: step. A new event changes the log's end, so a running match is folded afresh as far as
#: asked once it has moved on.
_STEPS_KEPT = 16
_steps_kept: OrderedDict[tuple, tuple[list[dict[str, Any]], Iterator[dict[str, Any]]]] = (
    OrderedDict()
)


def _visible_step(match: Match, lens: Lens, step: int) -> dict[str, Any]:
    end = match_log_end(match=match)
    if end is None:
        # A pending match has no position yet, not even step 0.
        raise DomainError("the match has not started: its log is empty", field="log")
    key = (match.pk, *end, lens)
    if key not in _steps_kept:
        _steps_kept[key] = ([], visible_steps(match_event_records(match=match), lens))
        while len(_steps_kept) > _STEPS_KEPT:
            _steps_kept.popitem(last=False)
    _steps_kept.move_to_end(key)
    done, rest = _steps_kept[key]
    try:
        while len(done) <= step:
            done.append(next(rest))
    except StopIteration:
        steps = done[-1]["steps"] if done else 0
        raise DomainError(
            f"the log holds {steps} decisions; step {step} is past its end", field="step"
        ) from None
    except ReplayError as error:
        del _steps_kept[key]
        raise DomainError(f"the stored log does not replay: {error}", field="log") from None
    return done[step]
