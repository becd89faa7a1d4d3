"""A tournament's configuration is one value: the same settings on a tournament, on a
recurring tournament and in every form that makes or changes one, checked in one place."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments.config import CONFIG_FIELDS, TournamentConfig, TournamentError, config_of
from tournaments.models import RecurringTournament, Tournament
from tournaments.serializers import TournamentCreateSerializer, TournamentSerializer


def model_fields(model) -> dict[str, type]:
    return {field.name: type(field) for field in model._meta.concrete_fields}


def test_a_tournament_and_a_recurring_tournament_share_exactly_the_configuration_fields():
    tournament, recurring = model_fields(Tournament), model_fields(RecurringTournament)
    shared = {
        name for name in tournament.keys() & recurring.keys() if tournament[name] is recurring[name]
    }
    assert shared - {"id", "created_at"} == set(CONFIG_FIELDS)


def test_the_api_creates_and_shows_every_setting_of_the_configuration():
    assert set(TournamentCreateSerializer().fields) == {*CONFIG_FIELDS, "starts_at"}
    assert set(CONFIG_FIELDS) <= set(TournamentSerializer.Meta.fields)


@pytest.mark.django_db
def test_the_configuration_read_from_a_row_is_the_one_it_was_made_from():
    config = TournamentConfig(
        name="Nightly",
        game="snag",
        format="swiss",
        options={"target": 10},
        rounds=3,
        pairing_system="monrad",
        sets_per_pair=2,
        decision_timeout=0.5,
        time_bank_seconds=4.0,
        sandbox_overrides={"cpu_seconds": 5},
    )
    recurring = RecurringTournament.objects.create(
        **config.fields(), every=timedelta(days=1), next_start_at=timezone.now()
    )
    assert config_of(recurring) == recurring.config == config


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"game": "bridge"}, "game"),
        ({"options": {"target": 0}}, "options"),
        ({"format": "knockout"}, "format"),
        ({"sets_per_pair": 101}, "sets_per_pair"),
        ({"rounds": 2}, "rounds"),
        ({"format": "swiss", "rounds": 65}, "rounds"),
        ({"pairing_system": "random"}, "pairing_system"),
        ({"decision_timeout": 61.0}, "decision_timeout"),
        ({"time_bank_seconds": -1.0}, "time_bank_seconds"),
        ({"sandbox_overrides": {"gpus": 1}}, "sandbox_overrides"),
    ],
)
def test_the_check_names_the_setting_at_fault(changes, field):
    with pytest.raises(TournamentError) as refused:
        TournamentConfig(name="cup", game="snag").changed(**changes).check()
    assert refused.value.field == field


def test_a_change_to_something_that_is_no_setting_is_refused():
    with pytest.raises(TournamentError, match="not a tournament setting"):
        TournamentConfig(name="cup", game="snag").changed(seed="x")
