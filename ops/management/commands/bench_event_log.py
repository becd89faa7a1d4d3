"""``manage.py bench_event_log``: the event log's rows of ``make bench``, on PostgreSQL.

Run with ``DATABASE_URL`` naming a PostgreSQL server (``manage.py bench`` runs it so). It
measures in a scratch database of its own, created and dropped here, since stored matches
never leave the append-only log, and prints its medians as one JSON object.
"""

from __future__ import annotations

import json
import os
import statistics
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from ops import bot_benchmarks as bot_bench
from ops import match_benchmarks as match_bench
from ops.bot_benchmarks import MatchBots


class Command(BaseCommand):
    help = (
        "Measure Snag matches stored in PostgreSQL (matches/s beside the referee storing"
        " nothing) and the log's bytes per match, in a scratch database; print JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
        parser.add_argument("--matches", type=int, default=40, help="matches per run")

    def handle(self, *args: Any, runs: int, matches: int, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError(
                f"DATABASE_URL must name a PostgreSQL server, not {connection.vendor}"
            )
        connection.settings_dict["TEST"]["NAME"] = f"baize_bench_{os.getpid()}"
        server_database = connection.settings_dict["NAME"]
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            figures = _measure(max(1, runs), max(1, matches))
        finally:
            connection.creation.destroy_test_db(server_database, verbosity=0)
        self.stdout.write(json.dumps(figures))


def _measure(runs: int, matches: int) -> dict[str, float]:
    cpu = bot_bench.first_cpu()
    floor, stored = [], []
    for _ in range(runs):
        # Alternately, so that both see the same load on the machine.
        played = bot_bench.snag_matches_per_second(matches, MatchBots.IN_PROCESS, cpu)
        floor.append(played["matches_per_second"])
        stored.append(match_bench.stored_snag_matches_per_second(matches=matches, cpu=cpu))
    return {
        "stored_matches_per_second": statistics.median(stored),
        "unstored_matches_per_second": statistics.median(floor),
        **match_bench.event_log_bytes_per_match(),
    }
