"""The one writer of match rows: create, claim, renew, append, finish, fail, recover.

The event log is append-only and hash-chained (``games.events``), stored as batches: each
append is one row holding its events (``MatchEventBatch``). Appends are idempotent: an event
already stored with the same content is a no-op, with other content an ``EventConflict``.
Concurrent writers of a log are settled by the batches' key ``(match, first seq)``, not by
locks. A match's status moves only here, each move a conditional update,
so that of two writers racing (a worker and the tick, two deliveries of a task) exactly one
wins; a claim also locks its deal's rows, so that twins never run at once (``_claim``).
The last event of a log and the match's result are committed in one transaction: a
finished log never sits on a running row.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from time import monotonic
from types import TracebackType
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, QuerySet
from django.utils import timezone

from arena.text import storable_text
from bots.models import BotVersion
from games.events import (
    GENESIS_HASH,
    EventConflict,
    EventRecord,
    EventSequenceGap,
    EventType,
    batch_events,
    canonical_json,
    chain_events,
    stored_batch,
)
from games.rules import get_game

from .models import Match, MatchEventBatch, MatchSeat, SeatStderr
from .signals import match_finished, match_started

logger = logging.getLogger(__name__)

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


def match_seats_create(*, match: Match, versions: Sequence[BotVersion]) -> list[MatchSeat]:
    """Seat ``versions[0]`` in seat 0 and ``versions[1]`` in seat 1 of ``match``."""
    if len(versions) != 2:
        raise ValueError(f"a match has two seats, got {len(versions)} bot versions")
    return MatchSeat.objects.bulk_create(
        MatchSeat(match=match, seat=seat, version=version) for seat, version in enumerate(versions)
    )


def match_replacement_create(*, match: Match) -> Match:
    """A fresh pending match in the place of a failed one: same game, seed, options, seats."""
    versions = [seat.version for seat in match.seats.select_related("version").order_by("seat")]
    with transaction.atomic():
        fresh = match_create(game_id=match.game, seed=match.seed, options=match.options)
        match_seats_create(match=fresh, versions=versions)
    return fresh


def match_claim(*, match_id: int, worker: str) -> bool:
    """Move a pending match to running under ``worker``'s lease; False if it was not pending."""
    return _claim(match_id, worker) is not None


def _claim(match_id: int, worker: str) -> dict[str, Any] | None:
    """The fields a claim gave the match's row, or None if it was not pending or another
    match of its deal (same game and seed: its duplicate twin) is running.

    Twins never overlap: a bot playing one seat of a deal can never signal to, or hear from,
    a bot playing the other seat of the same deal while both run.
    """
    now = timezone.now()
    fields = {
        "status": Match.Status.RUNNING,
        "claimed_by": worker,
        "started_at": now,
        "lease_expires_at": now + timedelta(seconds=settings.BAIZE_MATCH_LEASE_SECONDS),
    }
    deal = Match.objects.filter(id=match_id).values_list("game", "seed").first()
    if deal is None:
        return None
    with transaction.atomic():
        # Row locks on every match of the deal, in id order: of two workers claiming a set's
        # two matches at once, the second waits for the first to commit, then sees it running.
        statuses = (
            Match.objects.select_for_update()
            .filter(game=deal[0], seed=deal[1])
            .order_by("id")
            .values_list("id", "status")
        )
        if any(other != match_id and status == Match.Status.RUNNING for other, status in statuses):
            return None
        # Conditional update: of two deliveries of one task, exactly one moves it out of pending.
        claimed = Match.objects.filter(id=match_id, status=Match.Status.PENDING).update(**fields)
    return fields if claimed == 1 else None


def match_fail(*, match_id: int, statuses: Sequence[str] = (Match.Status.RUNNING,)) -> bool:
    """Mark a match in one of ``statuses`` failed (its log stays as it is); True if this did."""
    failed = Match.objects.filter(id=match_id, status__in=list(statuses)).update(
        status=Match.Status.FAILED, finished_at=timezone.now(), lease_expires_at=None
    )
    return failed == 1


def matches_fail_pending(*, match_ids: Iterable[int]) -> list[int]:
    """Mark failed those of ``match_ids`` still pending (a cancelled tournament's); their ids."""
    now = timezone.now()
    with transaction.atomic():
        pending = list(
            Match.objects.select_for_update()
            .filter(id__in=list(match_ids), status=Match.Status.PENDING)
            .values_list("id", flat=True)
        )
        Match.objects.filter(id__in=pending).update(status=Match.Status.FAILED, finished_at=now)
    return pending


def match_finish(
    *,
    match: Match,
    events: Iterable[NewEvent],
    result: Mapping[str, Any],
    log_end: LogEnd | None = None,
) -> list[EventRecord]:
    """Append the last events of a running match's log and record its result, in one commit.

    ``result`` is the ``match_finished`` payload; ``log_end`` as for ``match_events_append``.
    ``MatchLeaseLost`` (and nothing stored) if the match is no longer running under the
    writer's claim. Returns the events stored now.
    """
    batch = _checked_batch(events)
    if log_end is not None and batch and batch[0].seq == log_end.next_seq:
        try:
            return _finish(match, batch, result, log_end)
        except IntegrityError:
            pass  # the log is not where the writer thought: settle it as any other writer
    return _finish(match, batch, result, None)


def _finish(
    match: Match, batch: list[NewEvent], result: Mapping[str, Any], log_end: LogEnd | None
) -> list[EventRecord]:
    with transaction.atomic():
        # Conditional update: a match the tick declared dead meanwhile gets no result. With
        # ``log_end`` it also checks that the log ends there, in the same statement.
        running = Match.objects.filter(
            id=match.pk, status=Match.Status.RUNNING, claimed_by=match.claimed_by
        )
        if log_end is not None and log_end.next_seq > 0:
            running = running.filter(Exists(_batch_ending_at(match.pk, log_end)))
        finished = running.update(
            **_result_fields(result), finished_at=timezone.now(), lease_expires_at=None
        )
        if finished != 1 and log_end is not None:
            raise _LogEndMoved(f"match {match.pk}: not running here, or its log moved")
        if finished != 1:
            raise MatchLeaseLost(f"match {match.pk} is no longer running under this writer")
        _announce_finish(match.pk, result)
        if not batch:
            return []
        if log_end is None:
            return _append(match, batch)
        records = chain_events(
            ((event.seq, event.type, event.payload) for event in batch), log_end.last_hash
        )
        if not _insert_batch(match.pk, records, after=log_end):
            raise _LogEndMoved(f"match {match.pk}: the log does not end at seq {log_end.next_seq}")
        return records


def _announce_finish(match_id: int, result: Mapping[str, Any]) -> None:
    """Send ``match_finished`` once the transaction that records the result commits."""
    reason = str(result["reason"])

    def send() -> None:
        # A receiver's error is logged, never raised: the result is committed already.
        for receiver, error in match_finished.send_robust(Match, match_id=match_id, reason=reason):
            if isinstance(error, Exception):
                logger.error("match %s: %r failed: %r", match_id, receiver, error, exc_info=error)

    transaction.on_commit(send)


def _batch_ending_at(match_id: int, log_end: LogEnd) -> QuerySet[MatchEventBatch]:
    """The batch a log that ends at ``log_end`` ends with (none if the log ends elsewhere)."""
    return MatchEventBatch.objects.filter(
        match_id=match_id, last_seq=log_end.next_seq - 1, hash=log_end.last_hash
    )


def _result_fields(result: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "status": Match.Status.FINISHED,
        "winner": result["winner"],
        "scores": list(result["scores"]),
        "result_reason": str(result["reason"]),
    }


def seat_stderr_store(*, match: Match, stderr: Sequence[str]) -> None:
    """Keep what each seat's bot wrote to stderr (``stderr[seat]``), for its owner and staff.

    The text is the bot's: stored as ``arena.text.storable_text`` makes it (a NUL as ``\\x00``,
    a lone surrogate as ``\\udc80``), which every database takes. Never raises: it is called
    once the match's result is committed, and its caller goes on to settle the set. If the
    two seats cannot be stored together, each is stored on its own, so that one seat's
    failure never loses the other's; a seat that still cannot be stored gets a note saying
    so in its place. Every failure is logged.
    """
    try:
        texts = {
            seat: storable_text(stderr[seat.seat])
            for seat in match.seats.order_by("seat")
            if stderr[seat.seat]
        }
    except Exception:
        logger.exception("match %s: no stderr stored, its seats could not be read", match.pk)
        return
    if not texts:
        return
    try:
        with transaction.atomic():
            SeatStderr.objects.bulk_create(
                SeatStderr(seat=seat, text=text) for seat, text in texts.items()
            )
        return
    except Exception:
        logger.exception("match %s: its seats' stderr could not be stored together", match.pk)
    for seat, text in texts.items():
        try:
            _seat_stderr_create(seat, text)
        except Exception as error:
            logger.exception("match %s: the stderr of seat %s not stored", match.pk, seat.seat)
            note = f"[{len(text)} characters of stderr could not be stored: {type(error).__name__}]"
            try:
                _seat_stderr_create(seat, note)
            except Exception:
                logger.exception("match %s: no note stored for seat %s", match.pk, seat.seat)


def _seat_stderr_create(seat: MatchSeat, text: str) -> None:
    """One seat's stderr, unless it has one already (stored by an earlier call)."""
    with transaction.atomic():
        if not SeatStderr.objects.filter(seat=seat).exists():
            SeatStderr.objects.create(seat=seat, text=text)


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


@dataclass(frozen=True, slots=True)
class LogEnd:
    """Where a match's log ends, as its writer knows it: the next seq and the last hash."""

    next_seq: int
    last_hash: str

    @classmethod
    def after(cls, records: Sequence[EventRecord]) -> LogEnd:
        return cls(records[-1].seq + 1, records[-1].hash)


#: The end of a log that holds nothing yet.
EMPTY_LOG = LogEnd(0, GENESIS_HASH)


def match_events_append(
    *,
    match: Match,
    events: Iterable[NewEvent | tuple[int, str, Any]],
    log_end: LogEnd | None = None,
) -> list[EventRecord]:
    """Append consecutive events to ``match``'s log in one transaction; return those stored now.

    ``EventSequenceGap`` if the batch does not continue the log; ``EventConflict`` if a seq
    is already stored with other content (then nothing of the batch is stored).

    With ``log_end`` (where the caller's own appends left the log) a batch that starts there
    is stored by one statement, which stores nothing unless the log's last event is the one
    ``log_end`` names; anything else (another writer, a redelivered batch) is settled by
    reading the log, as without it.
    """
    batch = _checked_batch(events)
    if not batch:
        return []
    if log_end is not None and batch[0].seq == log_end.next_seq:
        try:
            # One statement: a transaction of its own in autocommit, a savepoint inside one.
            with transaction.atomic() if connection.in_atomic_block else nullcontext():
                return _append_at(match.pk, batch, log_end)
        except IntegrityError:
            pass
    try:
        with transaction.atomic():
            return _append(match, batch)
    except IntegrityError:
        # Another writer stored some of these seqs between our read and our insert: now that
        # its rows are committed, the second pass compares against them.
        with transaction.atomic():
            return _append(match, batch)


class _LogEndMoved(IntegrityError):
    """The log does not end where the writer thought; nothing was stored."""


def _append_at(match_id: int, batch: list[NewEvent], log_end: LogEnd) -> list[EventRecord]:
    records = chain_events(
        ((event.seq, event.type, event.payload) for event in batch), log_end.last_hash
    )
    if not _insert_batch(match_id, records, after=log_end):
        raise _LogEndMoved(f"match {match_id}: the log does not end at seq {log_end.next_seq}")
    return records


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


def _append(match: Match, batch: list[NewEvent]) -> list[EventRecord]:
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
    if records and not _insert_batch(match.pk, records, after=LogEnd(next_seq, prev_hash)):
        raise _LogEndMoved(f"match {match.pk}: the log moved on from seq {next_seq}")
    return records


#: The columns of a batch's row, in the order ``_insert_batch`` gives them.
_BATCH_COLUMNS = ("match_id", "seq", "last_seq", "hash", "events")


def _insert_batch(match_id: int, records: list[EventRecord], after: LogEnd | None = None) -> bool:
    """Store ``records`` as one batch: one row, one statement. False if nothing was stored.

    With ``after`` (where the writer read or left the log's end) the batch is stored only if
    a batch ends there (its last seq and hash), checked in the same statement (an index
    lookup, not a round trip); without it, only the first batch of a log may be stored.
    With the key ``(match, first seq)``, which refuses a second batch from the same seq,
    that keeps every log's batches one after another from seq 0, with no gap and no overlap,
    whatever the writers do. The append-only triggers hold as for any other write.
    """
    row = [
        match_id,
        records[0].seq,
        records[-1].seq,
        bytes.fromhex(records[-1].hash),
        stored_batch((record.type, record.payload) for record in records),
    ]
    with connection.cursor() as cursor:
        if after is None or after.next_seq == 0:
            if records[0].seq != 0:
                return False
            cursor.execute(_insert_sql(), row)
            return True
        guard = [match_id, after.next_seq - 1, bytes.fromhex(after.last_hash)]
        cursor.execute(_insert_after_sql(), [*row, *guard])
        return cursor.rowcount == 1


def _insert_sql() -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(quote(column) for column in _BATCH_COLUMNS)
    values = ", ".join(["%s"] * len(_BATCH_COLUMNS))
    return f"INSERT INTO {quote(MatchEventBatch._meta.db_table)} ({columns}) VALUES ({values})"


def _insert_after_sql() -> str:
    quote = connection.ops.quote_name
    table = quote(MatchEventBatch._meta.db_table)
    columns = ", ".join(quote(column) for column in _BATCH_COLUMNS)
    values = ", ".join(["%s"] * len(_BATCH_COLUMNS))
    return (
        f"INSERT INTO {table} ({columns}) SELECT {values}"
        f" WHERE EXISTS (SELECT 1 FROM {table} WHERE {quote('match_id')} = %s"
        f" AND {quote('last_seq')} = %s AND {quote('hash')} = %s)"
    )


def _log_end(match: Match) -> tuple[int, str]:
    """The seq the match's log continues at, and the hash the next event chains from."""
    last = match.event_batches.order_by("-seq").values_list("last_seq", "hash").first()
    return (0, GENESIS_HASH) if last is None else (last[0] + 1, last[1])


def _check_already_stored(match: Match, events: list[NewEvent]) -> None:
    if not events:
        return
    first, last = events[0].seq, events[-1].seq
    stored = {}
    for seq, data in match.event_batches.filter(seq__lte=last, last_seq__gte=first).values_list(
        "seq", "events"
    ):
        stored.update(enumerate(batch_events(data), start=seq))
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


def match_lease_expire(*, match_id: int, now: datetime) -> str | None:
    """Settle a running match whose lease ran out before ``now``; its new status, or None.

    A log that already ends with a result (its worker died after logging it, or a log
    written before results were committed with their event) is settled from that result:
    finished, never failed and played again. Any other log marks the match failed.
    """
    with transaction.atomic():
        # Row lock: a runner finishing or renewing at this very moment either wins before
        # us (we then see it finished or renewed) or waits and then finds it failed.
        match = (
            Match.objects.select_for_update()
            .filter(id=match_id, status=Match.Status.RUNNING, lease_expires_at__lt=now)
            .first()
        )
        if match is None:
            return None
        last = _last_event(match)
        if last is not None and last[0] == EventType.MATCH_FINISHED:
            fields = _result_fields(last[1])
        else:
            fields = {"status": Match.Status.FAILED}
        Match.objects.filter(id=match_id).update(**fields, finished_at=now, lease_expires_at=None)
        if fields["status"] == Match.Status.FINISHED:
            _announce_finish(match_id, last[1])
        return fields["status"]


def _last_event(match: Match) -> tuple[str, Any] | None:
    """The type and payload of the last event of the match's log; None for an empty log."""
    data = match.event_batches.order_by("-seq").values_list("events", flat=True).first()
    return None if data is None else batch_events(data, last=1)[0]


_FLUSHED_AT_ONCE = frozenset({EventType.MATCH_STARTED, EventType.FORFEIT})
#: Events a writer holds at most: a whole match of quick bots in one batch, stored with its
#: result. Bots that take their time get their moves stored by time and while they think.
FLUSH_EVERY = 1000


class MatchEventWriter:
    """Numbers a running match's events and appends them in batches.

    The runner emits ``(type, payload)``; the writer assigns seqs from ``next_seq``. A batch
    is stored once it holds ``flush_every`` events or its first is ``flush_seconds`` old,
    and whenever the runner reports a bot thinking (``idle``), so a spectator sees each
    move within about a second while a fast match is stored in few round trips. The writer
    knows where its log ends (the next seq, the last hash), so a flush is one statement
    (``match_events_append``'s ``log_end``). Events
    that open a match or end it by forfeit are flushed at once; ``match_finished`` is stored
    with the match's result in one commit (``match_finish``). Leaving a ``with`` block
    flushes, also on an error: the events written so far are a true prefix of the match.
    """

    def __init__(
        self,
        match: Match,
        *,
        flush_every: int = FLUSH_EVERY,
        flush_seconds: float = 1.0,
        next_seq: int = 0,
        lease_seconds: float | None = None,
        log_end: LogEnd | None = None,
    ) -> None:
        if flush_every < 1:
            raise ValueError(f"flush_every must be at least 1, got {flush_every!r}")
        self.match = match
        self.flush_every = flush_every
        self.flush_seconds = flush_seconds
        self._batch_started = math.inf
        self.next_seq = next_seq
        # Where the log ends, if known: a new log's end is, another's only if given.
        self._log_end = log_end if log_end is not None or next_seq else EMPTY_LOG
        self._pending: list[NewEvent] = []
        self._lease_seconds = lease_seconds
        self._renew_at = monotonic() + lease_seconds / 3 if lease_seconds else math.inf

    def emit(self, type: str, payload: Any) -> int:
        """Queue one event and return its seq; renew the match's lease when it is due."""
        if monotonic() >= self._renew_at:
            self._renew_lease()
        seq = self.next_seq
        if not self._pending:
            self._batch_started = monotonic()
        self._pending.append(NewEvent(seq, type, payload))
        self.next_seq += 1
        if type == EventType.MATCH_FINISHED:
            stored = match_finish(
                match=self.match, events=self._pending, result=payload, log_end=self._log_end
            )
            self._stored(stored)
        elif (
            len(self._pending) >= self.flush_every
            or type in _FLUSHED_AT_ONCE
            or monotonic() - self._batch_started >= self.flush_seconds
        ):
            self.flush()
        return seq

    def idle(self) -> None:
        """A bot is thinking: store the moves made so far, and keep the lease."""
        if monotonic() >= self._renew_at:
            self._renew_lease()
        self.flush()

    def flush(self) -> None:
        if self._pending:
            stored = match_events_append(
                match=self.match, events=self._pending, log_end=self._log_end
            )
            self._stored(stored)

    def _stored(self, stored: list[EventRecord]) -> None:
        # Stored by this call: the log ends after them. Fewer: another writer stored some of
        # them (the same events), so the next flush reads where the log ends.
        whole = len(stored) == len(self._pending)
        self._log_end = LogEnd.after(stored) if whole else None
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
    *,
    match: Match,
    players: Sequence[Mapping[str, Any]],
    flush_every: int = FLUSH_EVERY,
    claim_for: str | None = None,
) -> MatchEventWriter:
    """A writer for a match about to be played, its ``match_started`` event already stored.

    With ``claim_for``, the pending match is claimed for that worker and its ``match_started``
    stored in one commit (a running match always has its first event); ``MatchNotPending``
    and nothing stored if it was not pending. For a match a worker has claimed, the writer
    renews the claim's lease as the match goes on (every third of
    ``BAIZE_MATCH_LEASE_SECONDS``), and raises ``MatchLeaseLost`` if the scheduler declared
    the match dead meanwhile.
    """
    started = match_started_payload(match=match, players=players)
    if claim_for is None:
        writer = MatchEventWriter(match, flush_every=flush_every, lease_seconds=_lease(match))
        writer.emit(EventType.MATCH_STARTED, started)
        return writer
    with transaction.atomic():
        claimed = _claim(match.pk, claim_for)
        if claimed is None:
            raise MatchNotPending(f"match {match.pk} is not pending")
        # A pending match's log is empty: its first event goes straight in.
        records = chain_events([(0, EventType.MATCH_STARTED, started)])
        _insert_batch(match.pk, records)
    match_started.send_robust(Match, match_id=match.pk)
    for name, value in claimed.items():
        setattr(match, name, value)
    return MatchEventWriter(
        match,
        flush_every=flush_every,
        next_seq=1,
        lease_seconds=_lease(match),
        log_end=LogEnd.after(records),
    )


def _lease(match: Match) -> float | None:
    return settings.BAIZE_MATCH_LEASE_SECONDS if match.claimed_by else None


class MatchNotPending(Exception):
    """The match was claimed by another delivery of its task, or settled, before this one."""
