"""The database itself refuses to change stored events (``matches`` migration 0004), on
PostgreSQL only."""

import pytest
from django.db import DatabaseError, connection, transaction

from matches.selectors import match_event_records
from matches.services import match_create, match_events_append
from tests.games.snag_logs import play_snag

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the append-only trigger exists on PostgreSQL only",
    ),
]

REFUSED = [
    "UPDATE matches_eventbatch SET events = ''::bytea",
    "DELETE FROM matches_eventbatch",
    "TRUNCATE matches_eventbatch",
]


@pytest.fixture
def stored_events():
    match = match_create(game_id="snag", seed=5, options={})
    match_events_append(match=match, events=play_snag(seed=5).events[:8])
    match_events_append(match=match, events=play_snag(seed=5).events[8:20])
    with connection.cursor() as cursor:
        # Run the deferred foreign-key checks now: PostgreSQL refuses to TRUNCATE a table
        # with checks pending, which would hide the refusal this file is about.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    return match, _events()


def _events():
    with connection.cursor() as cursor:
        cursor.execute("SELECT seq, last_seq, hash, events FROM matches_eventbatch ORDER BY seq")
        return cursor.fetchall()


def _execute_refused(statement):
    # A savepoint each, so that the test's transaction survives the refusal.
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement)


@pytest.mark.parametrize("statement", REFUSED)
def test_the_database_refuses_to_change_or_remove_stored_events(stored_events, statement):
    _execute_refused(statement)

    assert _events() == stored_events[1]


@pytest.mark.parametrize("statement", REFUSED)
def test_the_refusal_holds_under_session_replication_role_replica(stored_events, statement):
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
    try:
        _execute_refused(statement)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET session_replication_role")

    assert _events() == stored_events[1]


def test_the_triggers_are_enabled_always():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname, tgenabled FROM pg_trigger"
            " WHERE tgrelid = 'matches_eventbatch'::regclass AND NOT tgisinternal ORDER BY tgname"
        )
        triggers = cursor.fetchall()

    assert triggers == [
        ("matches_eventbatch_refuse_truncate", "A"),
        ("matches_eventbatch_refuse_update_delete", "A"),
    ]


def test_an_empty_event_log_can_still_be_truncated_so_a_fresh_database_can_be_flushed():
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE matches_eventbatch")
        cursor.execute("SELECT count(*) FROM matches_eventbatch")
        assert cursor.fetchone() == (0,)


def test_inserting_events_is_still_allowed(stored_events):
    match, batches = stored_events
    assert [(seq, last_seq) for seq, last_seq, _, _ in batches] == [(0, 7), (8, 19)]
    assert [record.seq for record in match_event_records(match=match)] == list(range(20))
