"""The move of the match models into the matches app keeps every stored row as it was.

A database is brought back to the schema before the move, filled there (through the
historical models) with a played match and its twin, their logs, seats and stderr, a
tournament linking them and ratings, and migrated forward: everything reads back through
the new models, the logs still replay, and PostgreSQL's append-only trigger still holds.
"""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from ops.game_benchmarks import random_match_log

BEFORE_THE_MOVE = [
    ("games", "0002_match_event_append_only"),
    ("bots", "0002_uploads"),
    ("tournaments", "0005_time_bank_sandbox_overrides"),
    ("matches", None),
]


@pytest.fixture
def migrated_back(transactional_db):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_THE_MOVE)
    nodes = [node for node in BEFORE_THE_MOVE if node[1] is not None]
    yield executor.loader.project_state(nodes).apps
    _empty_the_append_only_log()
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _empty_the_append_only_log() -> None:
    """Empty the event rows' table or the batches', whichever the schema has now."""
    # The trigger refuses to delete events; DDL is the one way past it, by design.
    postgresql = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
        for table in {"games_matchevent", "matches_eventbatch"} & tables:
            triggers = [f"{table}_refuse_update_delete", f"{table}_refuse_truncate"]
            for trigger in triggers if postgresql else []:
                cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
            cursor.execute(f"DELETE FROM {table}")
            for trigger in triggers if postgresql else []:
                cursor.execute(f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {trigger}")


def fill_the_old_schema(apps) -> dict:
    """A finished Snag duplicate set in a tournament, with ratings, in the pre-move models."""
    user = apps.get_model("auth", "User").objects.create(username="author")
    bot = apps.get_model("bots", "Bot").objects.create(name="old", game="snag", owner=user)
    Version = apps.get_model("bots", "BotVersion")
    versions = [
        Version.objects.create(bot=bot, number=n, content_hash=f"h{n}", status="ready")
        for n in (1, 2)
    ]
    tournament = apps.get_model("tournaments", "Tournament").objects.create(
        name="before", game="snag", seed="s", seed_sha256="x", status="finished"
    )
    entrants = [
        apps.get_model("tournaments", "Entrant").objects.create(
            tournament=tournament, version=version, position=i
        )
        for i, version in enumerate(versions)
    ]
    pairing = apps.get_model("tournaments", "Pairing").objects.create(
        tournament=tournament, key="R1-1", round=1, table=1, first=entrants[0], second=entrants[1]
    )
    duplicate_set = apps.get_model("tournaments", "DuplicateSet").objects.create(
        pairing=pairing, number=1, seed=77
    )
    logs = {}
    for first_seat in (0, 1):
        log = random_match_log(
            game_id="snag", seed=77, options={"target": 15}, rng=random.Random(first_seat)
        )
        result = log[-1].payload
        match = apps.get_model("games", "Match").objects.create(
            game="snag",
            rules_version=log[0].payload["rules_version"],
            seed=77,
            options={"target": 15},
            status="finished",
            winner=result["winner"],
            scores=result["scores"],
            result_reason="played",
        )
        apps.get_model("games", "MatchEvent").objects.bulk_create(
            apps.get_model("games", "MatchEvent")(
                match=match, seq=r.seq, type=r.type, payload=r.payload, hash=r.hash
            )
            for r in log
        )
        seats = [
            apps.get_model("bots", "MatchSeat").objects.create(match=match, seat=seat, version=v)
            for seat, v in enumerate(versions if first_seat == 0 else versions[::-1])
        ]
        apps.get_model("bots", "SeatStderr").objects.create(
            seat=seats[0], text=f"note {first_seat}"
        )
        apps.get_model("tournaments", "TournamentMatch").objects.create(
            tournament=tournament, duplicate_set=duplicate_set, match=match, first_seat=first_seat
        )
        logs[match.pk] = [tuple(record) for record in log]
    board = apps.get_model("tournaments", "Leaderboard").objects.create(game="snag")
    for version in versions:
        apps.get_model("tournaments", "Rating").objects.create(
            leaderboard=board,
            version=version,
            mu=25.0 + version.number,
            sigma=8.0,
            conservative=1.0,
        )
    return {"logs": logs, "tournament": tournament.pk}


def test_the_move_keeps_every_match_its_log_seats_stderr_links_and_ratings(migrated_back):
    stored = fill_the_old_schema(migrated_back)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    from matches.models import Match, SeatStderr
    from matches.selectors import match_event_count, match_event_records, match_replay
    from tournaments.models import TournamentMatch
    from tournaments.ratings.models import Rating

    assert set(Match.objects.values_list("id", flat=True)) == set(stored["logs"])
    for match in Match.objects.all():
        assert [tuple(r) for r in match_event_records(match=match)] == stored["logs"][match.pk]
        assert match_replay(match=match).ok
        assert [seat.version.number for seat in match.seats.order_by("seat")] in ([1, 2], [2, 1])
        assert match.tournament_match.tournament_id == stored["tournament"]
    assert sorted(SeatStderr.objects.values_list("text", flat=True)) == ["note 0", "note 1"]
    assert TournamentMatch.objects.count() == 2
    assert sorted(Rating.objects.values_list("mu", flat=True)) == [26.0, 27.0]
    if connection.vendor == "postgresql":
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE matches_eventbatch SET events = ''")
    stored_events = sum(match_event_count(match_id=match_id) for match_id in stored["logs"])
    assert stored_events == sum(len(log) for log in stored["logs"].values())


# The compact event rows (matches migration 0002). --------------------------------------------

BEFORE_COMPACT_ROWS = [("matches", "0001_initial")]


@pytest.fixture
def before_compact_rows(transactional_db):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_COMPACT_ROWS)
    yield executor.loader.project_state(BEFORE_COMPACT_ROWS).apps
    _empty_the_append_only_log()
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _old_log(apps, seed: int) -> list[tuple]:
    """A finished Snag match stored as rows were before 0002: hex hashes, jsonb, an id."""
    log = random_match_log(game_id="snag", seed=seed, options={"target": 15}, rng=random.Random(1))
    result = log[-1].payload
    match = apps.get_model("matches", "Match").objects.create(
        game="snag",
        rules_version=log[0].payload["rules_version"],
        seed=seed,
        options={"target": 15},
        status="finished",
        winner=result["winner"],
        scores=result["scores"],
        result_reason="played",
    )
    apps.get_model("matches", "MatchEvent").objects.bulk_create(
        apps.get_model("matches", "MatchEvent")(
            match=match, seq=r.seq, type=r.type, payload=r.payload, hash=r.hash
        )
        for r in log
    )
    return match.pk, [tuple(record) for record in log]


def _new_log(seed: int) -> tuple[int, list[tuple]]:
    """A finished Snag match stored by today's writer."""
    from matches.services import match_create, match_event_writer

    log = random_match_log(game_id="snag", seed=seed, options={"target": 15}, rng=random.Random(2))
    match = match_create(game_id="snag", seed=seed, options={"target": 15})
    players = log[0].payload["players"]
    with match_event_writer(match=match, players=players, claim_for="test") as writer:
        for record in log[1:]:
            writer.emit(record.type, record.payload)
    return match.pk, [tuple(record) for record in log]


def _replay_matches() -> str:
    out = StringIO()
    call_command("replay_matches", stdout=out)
    return out.getvalue()


def test_logs_stored_before_the_compact_rows_replay_beside_logs_stored_after(before_compact_rows):
    old_id, old = _old_log(before_compact_rows, seed=31)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    new_id, new = _new_log(seed=32)

    from matches.models import Match
    from matches.selectors import match_event_records

    for match_id, log in ((old_id, old), (new_id, new)):
        match = Match.objects.get(pk=match_id)
        assert [tuple(record) for record in match_event_records(match=match)] == log
    events = len(old) + len(new)
    assert _replay_matches().strip() == f"2 matches replayed ({events} events): 0 failed"


def test_the_compact_rows_keep_no_id_no_index_but_their_key_and_raw_digests(before_compact_rows):
    executor = MigrationExecutor(connection)
    executor.migrate(COMPACT_ROWS)

    with connection.cursor() as cursor:
        columns = [c.name for c in connection.introspection.get_table_description(cursor, TABLE)]
        constraints = connection.introspection.get_constraints(cursor, TABLE)
    assert sorted(columns) == ["hash", "match_id", "payload", "seq", "type"]
    # One index: the key (SQLite's introspection lists its columns in the table's order).
    indexed = [c for c in constraints.values() if c["index"] or c["primary_key"]]
    assert [set(c["columns"]) for c in indexed] == [{"match_id", "seq"}]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE"
                " attrelid = %s::regclass AND attname IN ('hash', 'payload') ORDER BY attname",
                [TABLE],
            )
            assert cursor.fetchall() == [("hash", "bytea"), ("payload", "json")]


COMPACT_ROWS = [("matches", "0003_match_deal_index")]


def test_going_back_before_the_compact_rows_keeps_every_event(before_compact_rows):
    old_id, old = _old_log(before_compact_rows, seed=41)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    new_id, new = _new_log(seed=42)

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_COMPACT_ROWS)
    apps = executor.loader.project_state(BEFORE_COMPACT_ROWS).apps

    events = apps.get_model("matches", "MatchEvent").objects.order_by("seq")
    for match_id, log in ((old_id, old), (new_id, new)):
        rows = events.filter(match_id=match_id).values_list("seq", "type", "payload", "hash")
        assert [tuple(row) for row in rows] == log
    if connection.vendor == "postgresql":
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {TABLE}")


TABLE = "games_matchevent"


# The batches (matches migration 0004). -------------------------------------------------------


@pytest.fixture
def before_batches(transactional_db):
    executor = MigrationExecutor(connection)
    executor.migrate(COMPACT_ROWS)
    yield executor.loader.project_state(COMPACT_ROWS).apps
    _empty_the_append_only_log()
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _rows_log(apps, seed: int, spoil=None) -> tuple[int, list[tuple]]:
    """A finished Snag match stored as event rows (``matches`` 0002 and 0003); ``spoil``
    changes the log as it is stored (a list of rows, as the database holds them)."""
    log = random_match_log(game_id="snag", seed=seed, options={"target": 15}, rng=random.Random(3))
    result = log[-1].payload
    match = apps.get_model("matches", "Match").objects.create(
        game="snag",
        rules_version=log[0].payload["rules_version"],
        seed=seed,
        options={"target": 15},
        status="finished",
        winner=result["winner"],
        scores=result["scores"],
        result_reason="played",
    )
    rows = [tuple(record) for record in log]
    if spoil is not None:
        rows = spoil(rows)
    Event = apps.get_model("matches", "MatchEvent")
    Event.objects.bulk_create(
        Event(match=match, seq=seq, type=type, payload=payload, hash=hash)
        for seq, type, payload, hash in rows
    )
    return match.pk, rows


def _chain_failures(match_id: int) -> list[tuple]:
    from matches.models import Match
    from matches.selectors import match_replay

    failures = match_replay(match=Match.objects.get(pk=match_id)).failures
    return [(failure.seq, failure.kind.value) for failure in failures if failure.kind == "chain"]


def _think_longer(rows: list[tuple]) -> list[tuple]:
    """The log with one decision changed after it was hashed: its hash no longer chains."""
    seq = next(seq for seq, type, _, _ in rows if type == "decision" and seq > 20)
    seq, type, payload, hash = rows[seq]
    rows[seq] = (seq, type, {**payload, "think_us": payload["think_us"] + 1}, hash)
    return rows


def _one_event_lost(rows: list[tuple]) -> list[tuple]:
    return rows[:30] + rows[31:]


def test_logs_stored_as_rows_are_batches_after_and_read_back_event_for_event(before_batches):
    logs = dict(
        [
            _rows_log(before_batches, seed=51),
            _rows_log(before_batches, seed=52, spoil=_think_longer),
            _rows_log(before_batches, seed=53, spoil=_one_event_lost),
        ]
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    from matches.models import Match, MatchEventBatch
    from matches.selectors import match_event_records

    for match_id, rows in logs.items():
        match = Match.objects.get(pk=match_id)
        assert [tuple(record) for record in match_event_records(match=match)] == rows
    whole, spoilt, gapped = logs
    assert MatchEventBatch.objects.filter(match_id=whole).count() == 1
    assert _chain_failures(whole) == []
    # Each broken link of a chain reads back, and is found, where it was.
    changed = next(seq for seq, type, _, _ in logs[spoilt] if type == "decision" and seq > 20)
    assert _chain_failures(spoilt) == [(changed, "chain")]
    assert _chain_failures(gapped) == [(31, "chain"), (31, "chain")]  # its seq, its hash


def test_the_batches_keep_their_key_and_the_append_only_triggers(before_batches):
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
        description = connection.introspection.get_table_description(cursor, "matches_eventbatch")
        constraints = connection.introspection.get_constraints(cursor, "matches_eventbatch")
    assert "games_matchevent" not in tables
    columns = sorted(column.name for column in description)
    assert columns == ["events", "hash", "last_seq", "match_id", "seq"]
    indexed = [c for c in constraints.values() if c["index"] or c["primary_key"]]
    assert [set(c["columns"]) for c in indexed] == [{"match_id", "seq"}]
    if connection.vendor == "postgresql":
        match_id, _ = _new_log(seed=54)
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("DELETE FROM matches_eventbatch")


def test_going_back_before_the_batches_keeps_every_event_and_hash(before_batches):
    old_id, old = _rows_log(before_batches, seed=61, spoil=_think_longer)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    new_id, new = _new_log(seed=62)

    executor = MigrationExecutor(connection)
    executor.migrate(COMPACT_ROWS)
    apps = executor.loader.project_state(COMPACT_ROWS).apps

    events = apps.get_model("matches", "MatchEvent").objects.order_by("seq")
    for match_id, log in ((old_id, old), (new_id, new)):
        rows = events.filter(match_id=match_id).values_list("seq", "type", "payload", "hash")
        assert [tuple(row) for row in rows] == log
    if connection.vendor == "postgresql":
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {TABLE}")
