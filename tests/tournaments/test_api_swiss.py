"""The rounds a Swiss tournament publishes: the Dutch system unless Monrad is chosen."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from .conftest import decide_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db


def the_better_seed_wins(pairing):
    return (
        (2, 0, (60, 10))
        if pairing.first.bracket_position < pairing.second.bracket_position
        else (0, 2, (10, 60))
    )


def rounds_by_seed(tournament):
    body = APIClient().get(f"/api/tournaments/{tournament.pk}/pairings/?limit=100").json()
    rounds: dict[int, list[tuple[int, int]]] = {}
    for pairing in body["results"]:
        if pairing["second"] is not None:  # byes are left out
            seeds = (pairing["first"]["bracket_position"], pairing["second"]["bracket_position"])
            rounds.setdefault(pairing["round"], []).append(seeds)
    return [rounds[number] for number in sorted(rounds)]


def test_a_swiss_of_eight_is_paired_by_the_dutch_system_by_default():
    tournament = start(tournament_with(strategy_bots(8), format="swiss"))
    assert tournament.pairing_system == "dutch"
    decide_all(tournament, the_better_seed_wins)
    assert rounds_by_seed(tournament) == [
        [(1, 5), (2, 6), (3, 7), (4, 8)],
        [(1, 3), (2, 4), (5, 7), (6, 8)],
        # 1 and 2 on two sets, 3 to 6 on one, 7 and 8 on none.
        [(1, 2), (3, 5), (4, 6), (7, 8)],
    ]


def test_a_monrad_swiss_pairs_one_with_two():
    tournament = start(tournament_with(strategy_bots(8), format="swiss", pairing_system="monrad"))
    decide_all(tournament, the_better_seed_wins)
    assert rounds_by_seed(tournament) == [
        [(1, 2), (3, 4), (5, 6), (7, 8)],
        [(1, 3), (5, 7), (2, 4), (6, 8)],
        # 1 and 5 on two sets; 2, 3, 6 and 7 on one; 4 and 8 on none.
        [(1, 5), (2, 3), (6, 7), (4, 8)],
    ]


def test_a_bye_puts_its_entrant_in_the_score_group_of_a_pairing_won():
    # Two sets a pairing: 2 beats 4 in both (2 points), 1 and 3 draw both (1 point each),
    # and 5's bye is worth a pairing won, 2 points. Round two: 4 has the bye; 2 and 5 cannot
    # meet (1 and 3 would be left to meet again), so both float to meet 1 and 3.
    def results(pairing):
        if {pairing.first.bracket_position, pairing.second.bracket_position} == {1, 3}:
            return 1, 1, (30, 30)
        return the_better_seed_wins(pairing)

    tournament = start(tournament_with(strategy_bots(5), format="swiss", sets_per_pair=2))
    decide_all(tournament, results)
    assert rounds_by_seed(tournament)[:2] == [[(1, 3), (2, 4)], [(2, 1), (5, 3)]]
