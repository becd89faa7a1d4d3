"""Event logs stored as batches: one row per batch of events, not one per event.

Each stored log is converted without changing an event or a hash: its events become batches
(``matches.models.MatchEventBatch``) of at most ``FLUSH_EVERY`` events, and a batch ends
wherever a seq does not follow on from the one before or a stored hash is not the one the
chain computes from its event (a log changed or written wrongly), so that each such hash is
kept as a batch's commitment and the log reads back, and verifies, exactly as before
(``matches.selectors.match_event_records``). Then the event rows' table goes (DDL, which its
triggers do not stop), and the batches' table gets the same append-only triggers, with the
function of ``games`` migration 0002.

Going back expands every batch into its event rows, each hash as the log reads back, and
puts the rows' triggers back.
"""

import importlib
import json

import django.db.models.deletion
from django.db import migrations, models

import matches.models
from games.events import (
    GENESIS_HASH,
    batch_events,
    batch_records,
    event_hash,
    stored_batch,
    stored_payload,
    stored_payload_json,
)

ROWS = "games_matchevent"
BATCHES = "matches_eventbatch"
#: The most events one converted batch holds: the writer's own most (``FLUSH_EVERY``).
BATCH_EVENTS = 1000
#: Rows read, and batches written, at a time.
CHUNK = 2000

INSTALL = [
    f"""
    CREATE TRIGGER {BATCHES}_refuse_update_delete
        BEFORE UPDATE OR DELETE ON {BATCHES}
        FOR EACH ROW EXECUTE FUNCTION baize_refuse_match_event_change()
    """,
    f"""
    CREATE TRIGGER {BATCHES}_refuse_truncate
        BEFORE TRUNCATE ON {BATCHES}
        FOR EACH STATEMENT EXECUTE FUNCTION baize_refuse_match_event_change()
    """,
    f"ALTER TABLE {BATCHES} ENABLE ALWAYS TRIGGER {BATCHES}_refuse_update_delete",
    f"ALTER TABLE {BATCHES} ENABLE ALWAYS TRIGGER {BATCHES}_refuse_truncate",
]

UNINSTALL = [
    f"DROP TRIGGER {BATCHES}_refuse_truncate ON {BATCHES}",
    f"DROP TRIGGER {BATCHES}_refuse_update_delete ON {BATCHES}",
]


def _on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement, params=None)

    return run


def _stored_rows(connection):
    """Every event row as ``(match_id, seq, type, payload, hex hash)``, in log order, read a
    chunk at a time."""
    payload = "payload::text" if connection.vendor == "postgresql" else "payload"
    with connection.chunked_cursor() as cursor:
        cursor.execute(
            f"SELECT match_id, seq, type, {payload}, hash FROM {ROWS} ORDER BY match_id, seq"
        )
        while rows := cursor.fetchmany(CHUNK):
            for match_id, seq, type, text, digest in rows:
                yield match_id, seq, type, stored_payload(json.loads(text)), bytes(digest).hex()


def _batches(rows):
    """Batch rows ``(match_id, seq, last_seq, digest, events)`` of the event rows: a batch
    ends at a log's end, at ``BATCH_EVENTS`` events, before a seq that does not follow on,
    and at an event whose stored hash is not the one chained from the event before."""
    batch, log, prev_hash = [], None, GENESIS_HASH
    for match_id, seq, type, payload, stored_hash in rows:
        if match_id != log:
            log, prev_hash = match_id, GENESIS_HASH
        if batch and (
            match_id != batch[-1][0] or seq != batch[-1][1] + 1 or len(batch) == BATCH_EVENTS
        ):
            yield _batch_row(batch)
            batch = []
        batch.append((match_id, seq, type, payload, stored_hash))
        if not _chains(prev_hash, seq, type, payload, stored_hash):
            yield _batch_row(batch)
            batch = []
        prev_hash = stored_hash
    if batch:
        yield _batch_row(batch)


def _chains(prev_hash, seq, type, payload, stored_hash):
    try:
        return event_hash(prev_hash, seq, type, payload) == stored_hash
    except (TypeError, ValueError):
        return False


def _batch_row(batch):
    match_id, seq = batch[0][:2]
    last_seq, last_hash = batch[-1][1], batch[-1][4]
    events = stored_batch((type, payload) for _, _, type, payload, _ in batch)
    return match_id, seq, last_seq, bytes.fromhex(last_hash), events


def _insert(connection, table, columns, rows):
    marks = ", ".join(["%s"] * len(columns))
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
    chunk = []
    with connection.cursor() as cursor:
        for row in rows:
            chunk.append(row)
            if len(chunk) == CHUNK:
                cursor.executemany(sql, chunk)
                chunk = []
        if chunk:
            cursor.executemany(sql, chunk)


def rows_to_batches(apps, schema_editor):
    connection = schema_editor.connection
    batches = _batches(_stored_rows(connection))
    _insert(connection, BATCHES, ["match_id", "seq", "last_seq", "hash", "events"], batches)


def _stored_batches(connection):
    with connection.chunked_cursor() as cursor:
        cursor.execute(f"SELECT match_id, seq, hash, events FROM {BATCHES} ORDER BY match_id, seq")
        while rows := cursor.fetchmany(CHUNK):
            yield from rows


def _event_rows(batches):
    """The event rows ``(match_id, seq, type, packed payload, digest)`` of the batches."""
    log, prev_hash = None, GENESIS_HASH
    for match_id, seq, digest, data in batches:
        if match_id != log:
            log, prev_hash = match_id, GENESIS_HASH
        last_hash = bytes(digest).hex()
        for record in batch_records(seq, batch_events(bytes(data)), prev_hash, last_hash):
            payload = stored_payload_json(record.payload)
            yield match_id, record.seq, record.type, payload, bytes.fromhex(record.hash)
        prev_hash = last_hash


def batches_to_rows(apps, schema_editor):
    connection = schema_editor.connection
    rows = _event_rows(_stored_batches(connection))
    _insert(connection, ROWS, ["match_id", "seq", "type", "payload", "hash"], rows)
    if connection.vendor == "postgresql":
        append_only = importlib.import_module("games.migrations.0002_match_event_append_only")
        # The function outlived the rows' table; their triggers went with it.
        for statement in append_only.INSTALL[1:]:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0003_match_deal_index"),
        ("games", "0002_match_event_append_only"),
    ]

    operations = [
        migrations.CreateModel(
            name="MatchEventBatch",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "match_id",
                        "seq",
                        blank=True,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                ("seq", models.PositiveIntegerField()),
                ("last_seq", models.PositiveIntegerField()),
                ("hash", matches.models.DigestField()),
                ("events", models.BinaryField()),
                (
                    "match",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="event_batches",
                        to="matches.match",
                    ),
                ),
            ],
            options={
                "db_table": BATCHES,
                "ordering": ["match", "seq"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("last_seq__gte", models.F("seq"))),
                        name="event_batch_not_empty",
                    )
                ],
            },
        ),
        migrations.RunPython(rows_to_batches, batches_to_rows, elidable=False),
        migrations.RunPython(_on_postgresql(INSTALL), _on_postgresql(UNINSTALL), elidable=False),
        migrations.DeleteModel(name="MatchEvent"),
    ]
