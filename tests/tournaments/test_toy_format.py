"""Adding a format is one planner and one entry in the formats table: a toy format, the
gauntlet (the top seed plays every other entrant once), is registered here and a
tournament of it is created, played and ranked through the usual services and API."""

from __future__ import annotations

import pytest

from tournaments import selectors, services
from tournaments.formats import FORMATS, FormatSpec, register_format
from tournaments.models import RatingUpdate, Tournament
from tournaments.planning import NO_BRACKET, NewPairing, Plan, TournamentState

from .conftest import play_all, start, strategy_bots, tournament_with

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


def test_a_toy_format_without_rounds_refuses_a_number_of_rounds(gauntlet):
    with pytest.raises(services.TournamentError, match="rounds"):
        tournament_with(strategy_bots(2), format="gauntlet", rounds=2)
