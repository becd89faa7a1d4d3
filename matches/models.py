"""A match: its row, its append-only event log, its seats and what their bots wrote to stderr.

A match's events are its history: they are inserted once and never changed or deleted.
The model refuses it here, and on PostgreSQL triggers refuse it in the database too
(``matches`` migration 0004, with the function of ``games`` migration 0002). The tables of
matches, seats and stderr keep the names they had when these models lived in the ``games``
and ``bots`` apps.

A log is stored as batches (``matches`` migration 0004): each row holds consecutive events
as its writer flushed them together, compressed (``games.events.stored_batch``), and the
hash of its last event, the batch's commitment; the other hashes follow from the events and
are computed as the log is read (``matches.selectors.match_event_records``). A quick match
is two rows, its claim's ``match_started`` and the rest with its result; one whose bots take
their time gains a row for each second or so of play (``MatchEventWriter``).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models.fields.json import KeyTransform

from bots.models import BotVersion
from games.events import (
    EventImmutable,
    ResultReason,
    stored_payload,
    stored_payload_json,
)
from games.rules.decks import MAX_SEED


class Match(models.Model):
    """One match of one game between two seats, from its seed and options to its result."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"

    game = models.CharField(max_length=32)
    rules_version = models.CharField(max_length=16)
    #: The options as given, including stacked ``decks``.
    options = models.JSONField(default=dict)
    seed = models.BigIntegerField(validators=[MinValueValidator(0), MaxValueValidator(MAX_SEED)])
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    winner = models.SmallIntegerField(null=True, blank=True)
    #: Match points ``[seat 0, seat 1]``; null until the match is finished.
    scores = models.JSONField(null=True, blank=True)
    result_reason = models.CharField(
        max_length=16, choices=[(reason.value, reason.value) for reason in ResultReason], blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: The worker that claimed the match, and until when its claim holds.
    claimed_by = models.CharField(max_length=255, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_match"
        verbose_name_plural = "matches"
        ordering = ["id"]
        indexes = [
            models.Index(fields=["status"], name="match_status"),
            # A deal's matches (a duplicate set's twins, their replacements): the claim's
            # guard and the visibility rule look them up.
            models.Index(fields=["game", "seed"], name="match_deal"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(seed__gte=0), name="match_seed_not_negative"),
            models.CheckConstraint(
                condition=models.Q(winner__isnull=True) | models.Q(winner__in=[0, 1]),
                name="match_winner_is_a_seat",
            ),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game}, seed {self.seed}, {self.status})"


class EventBatchQuerySet(models.QuerySet):
    """Stored batches only ever gain rows: no update, delete or upsert through the ORM."""

    def update(self, **kwargs: Any) -> int:
        raise EventImmutable("match events are append-only; they cannot be updated")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise EventImmutable("match events are append-only; they cannot be deleted")

    def bulk_create(self, objs: Any, *args: Any, **kwargs: Any) -> list[MatchEventBatch]:
        if kwargs.get("update_conflicts"):
            raise EventImmutable("match events are append-only; an insert cannot update a row")
        return super().bulk_create(objs, *args, **kwargs)


class DigestField(models.BinaryField):
    """A SHA-256 digest stored as its 32 bytes, read and written as its 64 hex digits."""

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> str | None:
        return None if value is None else bytes(value).hex()

    def to_python(self, value: Any) -> Any:
        return value

    def get_prep_value(self, value: Any) -> Any:
        return bytes.fromhex(value) if isinstance(value, str) else value


class EventPayloadField(models.JSONField):
    """The payload column of the event rows ``matches`` migration 0004 turned into batches:
    packed (``games.events.stored_payload_json``), ``json`` on PostgreSQL. Only the
    migrations that built and converted those rows use it."""

    def db_type(self, connection: Any) -> str | None:
        return "json" if connection.vendor == "postgresql" else super().db_type(connection)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        return None if value is None else stored_payload_json(value)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None:
            return None
        if isinstance(expression, KeyTransform):
            if connection.vendor == "postgresql":
                return value
            return super().from_db_value(value, expression, connection)
        return stored_payload(json.loads(value) if isinstance(value, str) else value)


class MatchEventBatch(models.Model):
    """Consecutive events of a match's log, ``seq`` to ``last_seq``, stored together.

    ``events`` is ``games.events.stored_batch`` of their types and payloads; ``hash`` is the
    chain hash of the last of them (``games.events``), which the next batch chains from.
    Keyed by ``(match, seq)``: two writers can never both continue a log from the same
    event, and a log's batches follow one another with no gap and no overlap.
    """

    pk = models.CompositePrimaryKey("match_id", "seq")
    # No index of its own: the key (match, seq) starts with it.
    match = models.ForeignKey(
        Match, on_delete=models.PROTECT, related_name="event_batches", db_index=False
    )
    #: The seq of the batch's first event.
    seq = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField()
    hash = DigestField()
    events = models.BinaryField()

    objects = EventBatchQuerySet.as_manager()

    class Meta:
        db_table = "matches_eventbatch"
        ordering = ["match", "seq"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(last_seq__gte=models.F("seq")), name="event_batch_not_empty"
            ),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} events {self.seq}-{self.last_seq}"

    def save(self, **kwargs: Any) -> None:
        if not self._state.adding or kwargs.get("force_update") or kwargs.get("update_fields"):
            raise EventImmutable(f"{self} is stored; match events are never changed")
        # Always an INSERT: a new instance carrying a stored pk must not overwrite that row.
        kwargs["force_insert"] = True
        super().save(**kwargs)

    def delete(self, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise EventImmutable(f"{self} is stored; match events are never deleted")


class MatchSeat(models.Model):
    """Which bot version sits in which seat of a match."""

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")

    class Meta:
        db_table = "bots_matchseat"
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="match_seat_unique"),
            models.CheckConstraint(condition=models.Q(seat__in=[0, 1]), name="match_seat_0_or_1"),
        ]
        ordering = ["match", "seat"]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat}: {self.version}"


class SeatStderr(models.Model):
    """What one seat's bot wrote to stderr during its match, capped by the runner.

    Kept beside the event log, not in it: the log is public and append-only, while stderr
    is the author's debugging output, for the bot's owner and staff only.
    """

    seat = models.OneToOneField(MatchSeat, on_delete=models.CASCADE, related_name="stderr")
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "bots_seatstderr"
        verbose_name_plural = "seat stderr"

    def __str__(self) -> str:
        return f"stderr of {self.seat}"
