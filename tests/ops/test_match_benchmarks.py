import pytest
from django.db import connection

from matches.models import Match, MatchEventBatch
from matches.selectors import match_replay
from ops.match_benchmarks import (
    append_events_per_second,
    event_log_bytes_per_match,
    stored_snag_matches_per_second,
)


@pytest.mark.django_db
def test_the_append_rate_leaves_no_match_behind_in_the_append_only_log():
    assert append_events_per_second(events=150, flush_every=20) > 0

    assert not Match.objects.exists()
    assert not MatchEventBatch.objects.exists()


@pytest.mark.django_db
def test_stored_benchmark_matches_are_claimed_logged_and_finished():
    assert stored_snag_matches_per_second(matches=2) > 0

    matches = Match.objects.order_by("seed")
    assert [(m.seed, m.status) for m in matches] == [(0, "finished"), (1, "finished")]
    for match in matches:
        assert match_replay(match=match).ok


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="sizes on disk are PostgreSQL's")
def test_the_log_bytes_per_match_count_the_table_and_the_events_it_holds():
    stored_snag_matches_per_second(matches=2)

    figures = event_log_bytes_per_match()

    # Two matches: a table's first pages, whatever its rows hold.
    assert figures["bytes_per_match"] >= 8192 / 2
    # A Snag match of random bots holds about 300 events, each hashed with its digest.
    assert figures["content_per_match"] > (100 + 32) * 100
