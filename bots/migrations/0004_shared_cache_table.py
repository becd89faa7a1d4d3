"""The database cache's table: the cache every web process shares when no Redis is set up.

Throttles (sign-ups, tokens, uploads) count in that cache, so a limit holds for the whole
service, not per process. Created whatever ``CACHES`` says now, so that switching to the
database cache later needs no step beyond the configuration.
"""

from django.conf import settings
from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations


def create_cache_table(apps, schema_editor):
    command = CreateCacheTable()
    command.verbosity = 0
    command.create_table(schema_editor.connection.alias, settings.CACHE_TABLE, False)


def drop_cache_table(apps, schema_editor):
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(settings.CACHE_TABLE)}")


class Migration(migrations.Migration):
    dependencies = [("bots", "0003_match_seats_move_to_matches")]

    operations = [migrations.RunPython(create_cache_table, drop_cache_table)]
