"""Tournaments that run themselves on real workers, PostgreSQL and Redis, with the tick.

Nothing is called by hand once a tournament is scheduled: django-celery-beat (embedded in
the worker) sends the tick, which starts the tournament; workers play the matches and
advance the rounds; the tick replaces the matches of a worker that died.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games.events import EventType
from matches.models import Match
from matches.selectors import match_event_records, match_replay
from tournaments import services
from tournaments.models import Tournament, TournamentMatch
from tournaments.ratings.services import ratings_recompute
from tournaments.selectors import tournament_standings

from .conftest import (
    services_configured,
    strategy_bots,
    tournament_with,
    wait_until,
    worker_kill,
)

pytestmark = [pytest.mark.slow, pytest.mark.services]

#: A tick a second, leases of four seconds: a dead worker's match is replaced within ~5 s.
FAST = {
    "BAIZE_TICK_SECONDS": "1",
    "BAIZE_MATCH_LEASE_SECONDS": "4",
    "BAIZE_MATCH_REDISPATCH_SECONDS": "30",
}


@pytest.mark.django_db
def test_the_worker_tournaments_use_the_test_database():
    # A database-marked test makes pytest-django create the test database for the session
    # (it creates it only for sessions that hold one); the worker tests use it in autocommit.
    if not services_configured():
        pytest.skip("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis")
    assert connection.settings_dict["NAME"].startswith("test_")


def finished(*tournaments: Tournament) -> bool:
    statuses = Tournament.objects.filter(pk__in=[t.pk for t in tournaments]).values_list(
        "status", flat=True
    )
    return set(statuses) == {Tournament.Status.FINISHED}


def assert_every_match_logged_exactly_once(tournament: Tournament) -> None:
    links = TournamentMatch.objects.filter(tournament=tournament).select_related("match")
    for link in links:
        log = match_event_records(match=link.match)
        starts = sum(1 for record in log if record.type == EventType.MATCH_STARTED)
        assert starts == 1, f"match {link.match_id} has {starts} match_started events"
        seqs = [record.seq for record in log]
        assert seqs == list(range(len(seqs)))
    current = [link for link in links if link.replaced_at is None]
    assert all(link.match.status == Match.Status.FINISHED for link in current)
    seatings = Counter((link.duplicate_set_id, link.first_seat) for link in current)
    assert set(seatings.values()) == {1}, "one finished match per seat arrangement of a set"
    assert all(match_replay(match=link.match).ok for link in current)


def test_an_eight_bot_swiss_and_double_elimination_run_from_their_scheduled_start(
    celery_workers,
):
    celery_workers(beat=True, **FAST)
    swiss = tournament_with(strategy_bots(8), format="swiss", secret="worker-swiss")
    double = tournament_with(strategy_bots(8), format="double_elimination", secret="worker-de")
    starts_at = timezone.now() + timedelta(seconds=2)
    for tournament in (swiss, double):
        assert services.tournament_schedule(tournament=tournament, starts_at=starts_at)
    wait_until(lambda: finished(swiss, double), "both tournaments to finish")
    swiss.refresh_from_db()
    double.refresh_from_db()
    assert swiss.started_at >= starts_at and double.started_at >= starts_at
    assert swiss.rounds == 3 and swiss.pairings.count() == 12
    met = [frozenset(p) for p in swiss.pairings.values_list("first_id", "second_id")]
    assert len(set(met)) == 12, "no rematch"
    places = [row.place for _, row in tournament_standings(tournament=double).rows]
    assert places[:3] == [1, 2, 3] and None not in places
    for tournament in (swiss, double):
        assert_every_match_logged_exactly_once(tournament)
        assert tournament_standings(tournament=tournament).rows[0][1].rank == 1
    assert ratings_recompute(game_id="snag", write=False).identical


def test_killing_the_worker_mid_tournament_and_starting_another_still_finishes_it(
    celery_workers,
):
    first = celery_workers(beat=True, **FAST)
    tournament = tournament_with(
        strategy_bots(8), format="double_elimination", secret="worker-kill", options={"target": 40}
    )
    services.tournament_schedule(tournament=tournament, starts_at=timezone.now())
    playing = Match.objects.filter(tournament_match__tournament=tournament)
    wait_until(
        lambda: (
            playing.filter(status=Match.Status.FINISHED).count() >= 4
            and playing.filter(status=Match.Status.RUNNING).exists()
        ),
        "a few matches played and one under way",
    )
    worker_kill(first)
    orphaned = set(playing.filter(status=Match.Status.RUNNING).values_list("id", flat=True))
    assert orphaned, "the worker died with a match in hand"

    celery_workers(beat=True, **FAST)
    wait_until(lambda: finished(tournament), "the tournament to finish on the new worker")
    tournament.refresh_from_db()

    for link in TournamentMatch.objects.filter(match_id__in=orphaned).select_related("match"):
        assert link.match.status == Match.Status.FAILED
        assert link.replaced_at is not None and "lease" in link.failure
        replacement = TournamentMatch.objects.select_related("match").get(
            duplicate_set=link.duplicate_set, first_seat=link.first_seat, replaced_at__isnull=True
        )
        assert replacement.match.seed == link.match.seed
        assert replacement.match.status == Match.Status.FINISHED
    assert_every_match_logged_exactly_once(tournament)
    places = [row.place for _, row in tournament_standings(tournament=tournament).rows]
    assert places[:2] == [1, 2] and None not in places
    assert ratings_recompute(game_id="snag", write=False).identical


def test_a_worker_killed_after_logging_a_result_leaves_it_finished_once(celery_workers, tmp_path):
    deaths = tmp_path / "deaths"
    hook = "tests.tournaments.dying_worker"
    celery_workers(beat=True, hook=hook, BAIZE_TEST_DEATHS=str(deaths), **FAST)
    tournament = tournament_with(strategy_bots(2), secret="dies-after-result")
    services.tournament_schedule(tournament=tournament, starts_at=timezone.now())
    assert services.tournament_start(tournament_id=tournament.pk)

    wait_until(lambda: finished(tournament), "the tournament to finish from its logs")

    links = TournamentMatch.objects.filter(tournament=tournament).select_related("match")
    assert len(links) == 2 and all(link.replaced_at is None for link in links)
    assert set(deaths.read_text().split()) == {str(link.match_id) for link in links}
    for link in links:
        last = match_event_records(match=link.match)[-1]
        assert last.type == EventType.MATCH_FINISHED, "each worker died after its result"
        assert link.match.winner == last.payload["winner"]
        assert link.match.scores == last.payload["scores"]
    assert_every_match_logged_exactly_once(tournament)


def test_a_worker_killed_mid_series_leaves_the_matches_it_had_not_started_to_another(
    celery_workers,
):
    slow = {**FAST, "BAIZE_MATCH_REDISPATCH_SECONDS": "5", "BAIZE_TEST_DECISION_SECONDS": "0.01"}
    hook = "tests.tournaments.faults.slow_worker"
    first = celery_workers(beat=True, hook=hook, **slow)
    tournament = tournament_with(strategy_bots(2), secret="series-kill", sets_per_pair=6)
    services.tournament_schedule(tournament=tournament, starts_at=timezone.now())
    playing = Match.objects.filter(tournament_match__tournament=tournament)
    wait_until(
        lambda: (
            playing.filter(status=Match.Status.FINISHED).count() >= 2
            and playing.filter(status=Match.Status.RUNNING).exists()
            and playing.filter(status=Match.Status.PENDING).exists()
        ),
        "a series under way with matches played, one playing and some not started",
    )
    worker_kill(first)
    orphaned = set(playing.filter(status=Match.Status.RUNNING).values_list("id", flat=True))
    unstarted = set(playing.filter(status=Match.Status.PENDING).values_list("id", flat=True))
    first_claims = set(playing.exclude(claimed_by="").values_list("claimed_by", flat=True))

    celery_workers(beat=True, hook=hook, **slow)
    wait_until(lambda: finished(tournament), "the tournament to finish on the new worker")

    for link in TournamentMatch.objects.filter(match_id__in=orphaned).select_related("match"):
        assert link.match.status == Match.Status.FAILED
        assert link.replaced_at is not None and "lease" in link.failure
    for link in TournamentMatch.objects.filter(match_id__in=unstarted).select_related("match"):
        # Never claimed by the dead worker: played as it was, by the other one.
        assert link.replaced_at is None
        assert link.match.status == Match.Status.FINISHED
        assert link.match.claimed_by not in first_claims
    assert_every_match_logged_exactly_once(tournament)
