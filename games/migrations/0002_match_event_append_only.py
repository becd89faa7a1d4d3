"""On PostgreSQL, make the database itself refuse to change or remove stored match events.

Row triggers refuse UPDATE and DELETE, a statement trigger refuses TRUNCATE of a log that
holds any event. They are ``ENABLE ALWAYS``: ``SET session_replication_role = replica``,
which silences ordinary triggers, does not silence these. Only DDL (dropping or disabling the
triggers) gets past them. Other databases rely on the model's refusal alone.

TRUNCATE of an empty log is let through so that ``manage.py flush`` and the test runner's
flush of a fresh database keep working; there is nothing to lose in an empty table.
"""

from django.db import migrations

INSTALL = [
    """
    CREATE FUNCTION baize_refuse_match_event_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        holds_events boolean;
    BEGIN
        IF TG_OP = 'TRUNCATE' THEN
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.%I)', TG_TABLE_SCHEMA, TG_TABLE_NAME)
                INTO holds_events;
            IF NOT holds_events THEN
                RETURN NULL;
            END IF;
        END IF;
        RAISE EXCEPTION 'match events are append-only: % on % is refused', TG_OP, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END;
    $$
    """,
    """
    CREATE TRIGGER games_matchevent_refuse_update_delete
        BEFORE UPDATE OR DELETE ON games_matchevent
        FOR EACH ROW EXECUTE FUNCTION baize_refuse_match_event_change()
    """,
    """
    CREATE TRIGGER games_matchevent_refuse_truncate
        BEFORE TRUNCATE ON games_matchevent
        FOR EACH STATEMENT EXECUTE FUNCTION baize_refuse_match_event_change()
    """,
    "ALTER TABLE games_matchevent ENABLE ALWAYS TRIGGER games_matchevent_refuse_update_delete",
    "ALTER TABLE games_matchevent ENABLE ALWAYS TRIGGER games_matchevent_refuse_truncate",
]

UNINSTALL = [
    "DROP TRIGGER games_matchevent_refuse_truncate ON games_matchevent",
    "DROP TRIGGER games_matchevent_refuse_update_delete ON games_matchevent",
    "DROP FUNCTION baize_refuse_match_event_change()",
]


def _on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            # No parameters: the % signs belong to plpgsql, not to the driver.
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [
        migrations.RunPython(_on_postgresql(INSTALL), _on_postgresql(UNINSTALL), elidable=False)
    ]
