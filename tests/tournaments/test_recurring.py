"""Recurring tournaments: the tick creates and starts one per period, of every active bot."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.models import BotVersion
from tournaments.models import RecurringTournament, Tournament
from tournaments.tick import tournaments_tick

from .conftest import SHORT_SNAG, strategy_bots

pytestmark = pytest.mark.django_db


def nightly(**fields):
    defaults = {
        "name": "Nightly",
        "game": "snag",
        "options": SHORT_SNAG,
        "every": timedelta(days=1),
        "next_start_at": timezone.now() - timedelta(minutes=1),
    }
    return RecurringTournament.objects.create(**{**defaults, **fields})


def test_a_due_template_becomes_a_running_tournament_of_the_latest_ready_versions():
    first, second, _ = strategy_bots(3)
    newer = BotVersion.objects.create(
        bot=first.bot, number=2, builtin="random", content_hash="v2", status="ready"
    )
    BotVersion.objects.create(bot=second.bot, number=2, builtin="random", content_hash="p")
    template = nightly()
    due_at = template.next_start_at
    report = tournaments_tick()
    assert (report.spawned, report.started) == (1, 1)
    tournament = Tournament.objects.get(recurrence=template)
    assert tournament.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED)
    assert tournament.starts_at == due_at and tournament.options == SHORT_SNAG
    entered = set(tournament.entrants.values_list("version_id", flat=True))
    assert newer.pk in entered and first.pk not in entered, "the latest version only"
    assert second.pk in entered, "a version still pending does not replace a ready one"
    template.refresh_from_db()
    assert template.next_start_at == due_at + timedelta(days=1)


def test_a_template_spawns_once_per_period_however_many_ticks_run():
    strategy_bots(2)
    nightly()
    assert [tournaments_tick().spawned for _ in range(3)] == [1, 0, 0]


def test_after_an_outage_a_template_spawns_once_and_moves_to_its_next_period():
    strategy_bots(2)
    template = nightly(next_start_at=timezone.now() - timedelta(days=3, hours=1))
    assert tournaments_tick().spawned == 1
    template.refresh_from_db()
    assert timezone.now() < template.next_start_at <= timezone.now() + timedelta(days=1)


def test_an_inactive_or_future_template_spawns_nothing():
    strategy_bots(2)
    nightly(active=False)
    nightly(next_start_at=timezone.now() + timedelta(hours=1))
    assert tournaments_tick().spawned == 0


def test_a_recurring_swiss_paired_by_monrad_spawns_a_monrad_swiss():
    strategy_bots(4)
    template = nightly(format="swiss", rounds=2, pairing_system="monrad")
    tournaments_tick()
    spawned = Tournament.objects.get(recurrence=template)
    assert (spawned.format, spawned.rounds, spawned.pairing_system) == ("swiss", 2, "monrad")


def test_a_recurring_tournament_made_before_pairing_systems_pairs_by_the_dutch_system():
    assert nightly().pairing_system == "dutch"
