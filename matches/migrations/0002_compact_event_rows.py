"""Event rows in fewer bytes: keyed by (match, seq), raw digests, packed payloads.

The ``id`` column and its index go (the unique ``(match, seq)`` becomes the primary key),
and so do the index on ``match`` alone, which that key already gives, and ``created_at``,
which nothing showed. ``hash`` keeps the digest's 32 bytes instead of 64 hex characters;
``payload`` is ``json`` on PostgreSQL instead of ``jsonb``, and new decisions and shuffles
are stored packed (``games.events.stored_payload_json``).

Stored logs are converted, never changed: the same events, seqs and hashes, so they verify
and replay as before. On PostgreSQL the table is altered in place (a rewrite, which row
triggers do not see, so the append-only triggers stay as they are); their payloads keep the
objects they hold. SQLite cannot change a primary key, so there the rows are copied into
the new table. Going back copies them into the old one, and puts the triggers back.
"""

import importlib
import json

from django.db import migrations, models
from django.utils import timezone

import matches.models
from games.events import stored_payload, stored_payload_json

TABLE = "games_matchevent"


def _rows(schema_editor, payload_sql: str) -> list[tuple]:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"SELECT match_id, seq, type, {payload_sql}, hash FROM {TABLE} ORDER BY match_id, seq"
        )
        return cursor.fetchall()


def _payload(value):
    return stored_payload(json.loads(value) if isinstance(value, str) else value)


def compact(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            constraints = connection.introspection.get_constraints(cursor, TABLE)
        match_alone = [
            name
            for name, constraint in constraints.items()
            if constraint["index"] and constraint["columns"] == ["match_id"]
        ]
        for name in match_alone:
            schema_editor.execute(f'DROP INDEX "{name}"')
        schema_editor.execute(
            f"ALTER TABLE {TABLE}"
            " DROP CONSTRAINT match_event_unique_seq,"
            " DROP COLUMN id,"
            " DROP COLUMN created_at,"
            " ALTER COLUMN hash TYPE bytea USING decode(hash, 'hex'),"
            " ALTER COLUMN payload TYPE json USING payload::json,"
            f" ADD CONSTRAINT {TABLE}_pkey PRIMARY KEY (match_id, seq)"
        )
        return
    rows = [
        {
            "match_id": match_id,
            "seq": seq,
            "type": type,
            "payload": stored_payload_json(_payload(payload)),
            "hash": bytes.fromhex(hash),
        }
        for match_id, seq, type, payload, hash in _rows(schema_editor, "payload")
    ]
    _copy_into(schema_editor, apps.get_model("matches", "MatchEvent"), rows)


def expand(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    now = timezone.now()
    rows = [
        {
            "match_id": match_id,
            "seq": seq,
            "type": type,
            "payload": json.dumps(_payload(payload)),
            "hash": bytes(hash).hex(),
            "created_at": now,
        }
        for match_id, seq, type, payload, hash in _rows(
            schema_editor, "payload::text" if postgresql else "payload"
        )
    ]
    _copy_into(schema_editor, apps.get_model("matches", "MatchEvent"), rows)
    if postgresql:
        append_only = importlib.import_module("games.migrations.0002_match_event_append_only")
        # The function outlived the table; its triggers went with it.
        for statement in append_only.INSTALL[1:]:
            schema_editor.execute(statement, params=None)


def _copy_into(schema_editor, model, rows: list[dict]) -> None:
    """Drop the table (DDL, which the triggers do not stop) and create ``model``'s with ``rows``."""
    schema_editor.execute(f"DROP TABLE {TABLE}")
    schema_editor.create_model(model)
    if not rows:
        return
    quote = schema_editor.quote_name
    columns = ", ".join(quote(column) for column in rows[0])
    marks = ", ".join(["%s"] * len(rows[0]))
    with schema_editor.connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {TABLE} ({columns}) VALUES ({marks})",
            [tuple(row.values()) for row in rows],
        )


def nothing(apps, schema_editor):
    pass


class Migration(migrations.Migration):
    dependencies = [("matches", "0001_initial")]

    state_operations = [
        migrations.RemoveConstraint(model_name="matchevent", name="match_event_unique_seq"),
        migrations.RemoveField(model_name="matchevent", name="created_at"),
        migrations.RemoveField(model_name="matchevent", name="id"),
        migrations.AddField(
            model_name="matchevent",
            name="pk",
            field=models.CompositePrimaryKey(
                "match_id", "seq", blank=True, editable=False, primary_key=True, serialize=False
            ),
        ),
        migrations.AlterField(
            model_name="matchevent", name="hash", field=matches.models.DigestField()
        ),
        migrations.AlterField(
            model_name="matchevent",
            name="match",
            field=models.ForeignKey(
                db_index=False,
                on_delete=models.deletion.PROTECT,
                related_name="events",
                to="matches.match",
            ),
        ),
        migrations.AlterField(
            model_name="matchevent", name="payload", field=matches.models.EventPayloadField()
        ),
    ]

    # Each conversion runs where the models it builds are the current state: forward after
    # the state moves, backward before it moves back.
    operations = [
        migrations.RunPython(nothing, expand, elidable=False),
        migrations.SeparateDatabaseAndState(state_operations=state_operations),
        migrations.RunPython(compact, nothing, elidable=False),
    ]
