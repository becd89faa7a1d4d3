import pytest

from matches.benchmarks import append_events_per_second
from matches.models import Match, MatchEvent


@pytest.mark.django_db
def test_the_append_rate_leaves_no_match_behind_in_the_append_only_log():
    assert append_events_per_second(events=150, flush_every=20) > 0

    assert not Match.objects.exists()
    assert not MatchEvent.objects.exists()
