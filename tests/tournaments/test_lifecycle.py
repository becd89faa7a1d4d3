"""A tournament's life: draft, scheduled, running, finished or cancelled, each step once."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.apps import apps as django_apps
from django.utils import timezone

from bots.models import BotVersion
from matches.models import Match
from tournaments import services
from tournaments.config import TournamentConfig
from tournaments.duplicate import secret_commitment, set_seed
from tournaments.models import DuplicateSet, Entrant, Pairing, Tournament, TournamentMatch
from tournaments.services.scheduling import _snapshot, tournament_advance
from tournaments.tick import tournaments_tick

from .conftest import (
    current_matches,
    pending_match_ids,
    play_all,
    start,
    strategy_bots,
    tournament_with,
)

pytestmark = pytest.mark.django_db


def test_a_new_tournament_is_a_draft_whose_seed_only_shows_as_its_sha256():
    tournament = tournament_with(strategy_bots(2), secret=None)
    assert tournament.status == Tournament.Status.DRAFT
    assert len(tournament.secret) == 64, "a fresh secret of 256 bits"
    assert tournament.secret_sha256 == secret_commitment(tournament.secret)
    assert not tournament.secret_public


def test_the_tick_starts_a_scheduled_tournament_once_it_is_due_and_only_once():
    tournament = tournament_with(strategy_bots(3))
    later = timezone.now() + timedelta(seconds=60)
    assert services.tournament_schedule(tournament=tournament, starts_at=later)
    assert tournaments_tick().started == 0
    assert tournaments_tick(now=later + timedelta(seconds=1)).started == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.started_at
    assert not services.tournament_start(tournament_id=tournament.pk), "a second start is refused"
    assert tournaments_tick(now=later + timedelta(seconds=2)).started == 0


def test_entrants_are_fixed_and_seeded_by_rating_when_the_tournament_starts():
    versions = strategy_bots(3)
    tournament = tournament_with(versions)
    start(tournament)
    with pytest.raises(services.TournamentError, match="entries are closed"):
        services.tournament_enter(tournament=tournament, version=strategy_bots(1)[0])
    seeds = list(
        tournament.entrants.order_by("bracket_position").values_list("bracket_position", "position")
    )
    assert seeds == [(1, 1), (2, 2), (3, 3)], "unrated bots keep their entry order"


def test_a_tournament_with_fewer_than_two_entrants_is_cancelled_at_its_start():
    tournament = tournament_with(strategy_bots(1))
    services.tournament_schedule(tournament=tournament, starts_at=timezone.now())
    assert not services.tournament_start(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert "fewer than two entrants" in tournament.status_reason


def test_an_entry_must_be_a_ready_version_of_the_game_entered_once():
    tournament = tournament_with(strategy_bots(1))
    version = tournament.entrants.get().version
    with pytest.raises(services.TournamentError, match="already entered"):
        services.tournament_enter(tournament=tournament, version=version)
    spades = strategy_bots(1, game="spades")[0]
    with pytest.raises(services.TournamentError, match="plays spades"):
        services.tournament_enter(tournament=tournament, version=spades)
    pending = strategy_bots(1)[0]
    BotVersion.objects.filter(pk=pending.pk).update(status=BotVersion.Status.PENDING)
    pending.refresh_from_db()
    with pytest.raises(services.TournamentError, match="not ready"):
        services.tournament_enter(tournament=tournament, version=pending)
    assert Entrant.objects.filter(tournament=tournament).count() == 1


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"options": {"target": 0}}, "target"),
        ({"options": [1, 2]}, "options are an object"),
        ({"format": "knockout"}, "unknown format"),
        ({"sets_per_pair": 0}, "sets_per_pair"),
        ({"rounds": 3}, "Swiss"),
        ({"decision_timeout": 0}, "decision_timeout must be from 0.01"),
    ],
)
def test_bad_settings_are_refused_before_anything_is_stored(fields, message):
    with pytest.raises(services.TournamentError, match=message):
        config = TournamentConfig(name="bad", game="snag", **fields)
        services.tournament_create(config=config)
    assert not Tournament.objects.exists()


def test_a_started_tournament_cannot_be_reconfigured_or_rescheduled():
    tournament = start(tournament_with(strategy_bots(2)))
    assert not services.tournament_configure(tournament=tournament, sets_per_pair=3)
    assert not services.tournament_schedule(tournament=tournament, starts_at=timezone.now())
    tournament.refresh_from_db()
    assert tournament.sets_per_pair == 1 and tournament.status == Tournament.Status.RUNNING


def test_a_finished_round_robin_shows_its_seed_and_every_deal_derives_from_it():
    tournament = play_all(start(tournament_with(strategy_bots(3), sets_per_pair=2)))
    assert tournament.status == Tournament.Status.FINISHED and tournament.secret_public
    assert secret_commitment(tournament.secret) == tournament.secret_sha256
    links = TournamentMatch.objects.filter(tournament=tournament).select_related(
        "match", "duplicate_set__pairing"
    )
    assert links.count() == 3 * 2 * 2
    for link in links:
        assert link.match.seed == set_seed(tournament.secret, link.duplicate_set.key)


def test_the_two_matches_of_a_set_share_the_deal_and_swap_the_seats():
    tournament = start(tournament_with(strategy_bots(2)))
    first, second = current_matches(tournament).select_related("match").order_by("first_seat")
    assert first.match.seed == second.match.seed
    seats = [
        list(link.match.seats.order_by("seat").values_list("version", flat=True))
        for link in (first, second)
    ]
    assert seats[0] == list(reversed(seats[1]))


def test_cancelling_drops_the_matches_not_yet_played_and_keeps_the_reason():
    tournament = start(tournament_with(strategy_bots(4)))
    assert services.tournament_cancel(tournament=tournament, reason="venue flooded")
    assert not services.tournament_cancel(tournament=tournament, reason="again")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.status_reason == "venue flooded" and tournament.secret_public
    assert not pending_match_ids(tournament)
    failed = TournamentMatch.objects.filter(
        tournament=tournament, match__status=Match.Status.FAILED
    )
    assert failed.count() == 12 and {link.failure for link in failed} == {
        "the tournament was cancelled before it was played"
    }
    statuses = DuplicateSet.objects.filter(pairing__tournament=tournament).values_list(
        "status", flat=True
    )
    assert set(statuses) == {DuplicateSet.Status.NOT_PLAYED}, "they will never finish"
    assert tournaments_tick().advanced == 0


def test_an_advance_with_nothing_new_writes_nothing():
    tournament = play_all(start(tournament_with(strategy_bots(2))))
    progress = tournament.progress
    assert not tournament_advance(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.progress == progress


def test_an_advance_planned_on_a_stale_snapshot_does_not_write():
    tournament = start(tournament_with(strategy_bots(4), format="swiss", rounds=2))
    stale = _snapshot(tournament.pk)
    play_all(tournament)
    moved = Tournament.objects.filter(
        id=tournament.pk, status=Tournament.Status.RUNNING, progress=stale.tournament.progress
    ).update(progress=stale.tournament.progress + 1)
    assert moved == 0, "the conditional update refuses the second writer"
    assert Pairing.objects.filter(tournament=tournament).count() == 4


def test_the_migration_marks_the_sets_an_earlier_cancel_left_playing_not_played():
    tournament = start(tournament_with(strategy_bots(4)))
    running = start(tournament_with(strategy_bots(2)))
    services.tournament_cancel(tournament=tournament, reason="venue flooded")
    # As a cancel before this migration left them.
    DuplicateSet.objects.update(status=DuplicateSet.Status.PLAYING)

    set_not_played = importlib.import_module("tournaments.migrations.0011_set_not_played")
    set_not_played.mark_sets_not_played(django_apps, None)

    def statuses(of: Tournament) -> set[str]:
        sets = DuplicateSet.objects.filter(pairing__tournament=of)
        return set(sets.values_list("status", flat=True))

    assert statuses(tournament) == {DuplicateSet.Status.NOT_PLAYED}
    assert statuses(running) == {DuplicateSet.Status.PLAYING}
