"""Adding a format is one planner and one entry in the formats table: a toy format, the
gauntlet (the top seed plays every other entrant once), is registered here and a
tournament of it is created, played and ranked through the usual services and API."""

from __future__ import annotations

import pytest

from base.queues import AUTHOR_PRIORITY, FILLER_PRIORITY, FIRST_PRIORITY
from tournaments import selectors, services
from tournaments.formats import FORMATS, FormatSpec, register_format
from tournaments.models import Tournament
from tournaments.planning import NO_BRACKET, NewPairing, Plan, TournamentState
from tournaments.ratings.models import RatingUpdate
from tournaments.services.scheduling import match_priority, tournament_run_send

from .conftest import pending_match_ids, play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db


def plan_gauntlet(state: TournamentState, plan: Plan) -> None:
    if state.pairings:
        plan.finish = all(pairing.finished for pairing in state.pairings)
        return
    champion, *challengers = state.entrants
    for number, challenger in enumerate(challengers, start=1):
        plan.new_pairings.append(
            NewPairing(f"g{number}", NO_BRACKET, number, 1, champion.id, challenger.id)
        )


@pytest.fixture
def gauntlet():
    spec = register_format(FormatSpec("gauntlet", plan_gauntlet, rated=False))
    yield spec
    del FORMATS[spec.name]


def test_a_registered_toy_format_runs_a_tournament_end_to_end(gauntlet, client):
    tournament = play_all(start(tournament_with(strategy_bots(4), format="gauntlet")))
    assert tournament.status == Tournament.Status.FINISHED
    pairings = list(tournament.pairings.select_related("first"))
    assert len(pairings) == 3 and {pairing.first.bracket_position for pairing in pairings} == {1}
    table = selectors.tournament_standings(tournament=tournament)
    played = {entrant.bracket_position: row.played for entrant, row in table.rows}
    assert played == {1: 3, 2: 1, 3: 1, 4: 1}
    assert sum(row.score for _, row in table.rows) == 3, "one set point per pairing"
    assert not RatingUpdate.objects.exists(), "the toy format is unrated"
    shown = client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert (shown["format"], shown["kind"]) == ("gauntlet", "organised")
    assert shown["status"] == "finished"


def test_a_toy_format_registered_after_import_is_created_and_played_through_the_api(
    gauntlet, client
):
    from django.contrib.auth.models import Permission, User

    organiser = User.objects.create_user("organiser")
    organiser.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    client.force_login(organiser)
    body = {"name": "Gauntlet", "game": "snag", "format": "gauntlet", "options": {"target": 5}}

    created = client.post("/api/tournaments/", body, content_type="application/json")

    assert created.status_code == 201, created.json()
    tournament_id = created.json()["id"]
    for version in strategy_bots(3):
        entered = client.post(
            f"/api/tournaments/{tournament_id}/entrants/",
            {"version": version.pk},
            content_type="application/json",
        )
        assert entered.status_code == 201, entered.json()
    tournament = play_all(start(Tournament.objects.get(pk=tournament_id)))
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.pairings.count() == 2


def test_a_format_nobody_registered_is_refused_naming_the_known_ones(gauntlet, admin_client):
    body = {"name": "x", "game": "snag", "format": "knockout"}

    response = admin_client.post("/api/tournaments/", body, content_type="application/json")

    assert response.status_code == 400
    said = str(response.json()["detail"]["format"])
    assert "'knockout' is not an organiser's format" in said and "gauntlet" in said


def test_a_toy_format_without_rounds_refuses_a_number_of_rounds(gauntlet):
    with pytest.raises(services.TournamentError, match="rounds"):
        tournament_with(strategy_bots(2), format="gauntlet", rounds=2)


@pytest.fixture
def filler():
    """A toy format made by no organiser whose built-in matches only fill idle workers."""
    spec = FormatSpec(
        "filler", plan_gauntlet, rated=False, organised=False, fills_idle_workers=True
    )
    yield register_format(spec)
    del FORMATS[spec.name]


def test_the_priority_of_a_toy_formats_matches_comes_from_its_entry(gauntlet, filler):
    assert match_priority("gauntlet", runs_uploaded_code=False) == FIRST_PRIORITY
    assert match_priority("filler", runs_uploaded_code=False) == FILLER_PRIORITY
    assert match_priority("filler", runs_uploaded_code=True) == AUTHOR_PRIORITY


def test_a_series_of_a_toy_format_is_sent_at_its_priority(gauntlet, monkeypatch):
    sent = []
    monkeypatch.setattr(
        "tournaments.tasks.tournament_series_play.apply_async",
        lambda args, **options: sent.append(options["priority"]),
    )
    tournament = start(tournament_with(strategy_bots(2), format="gauntlet"))
    tournament_run_send(match_ids=pending_match_ids(tournament))
    assert sent == [FIRST_PRIORITY]
