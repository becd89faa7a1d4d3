from __future__ import annotations

import pytest

from tournaments.duplicate import (
    MAX_EXTRA_SETS,
    PairingWinner,
    SetMatch,
    SetOutcome,
    SetResult,
    pairing_decision,
    secret_commitment,
    set_result,
    set_seed,
)


def test_a_set_reads_each_match_from_the_first_entrants_seat():
    result = set_result([SetMatch(0, 0, (50, 20)), SetMatch(1, 1, (10, 51))])
    assert result == SetResult(first_wins=2, second_wins=0, first_points=101, second_points=30)
    assert result.outcome is SetOutcome.FIRST


def test_a_set_split_one_match_each_goes_to_the_entrant_with_more_match_points():
    # The first entrant wins match 1 in seat 0, the second wins match 2 (first sits in seat 1).
    result = set_result([SetMatch(0, 0, (50, 45)), SetMatch(1, 0, (52, 10))])
    assert (result.first_wins, result.second_wins) == (1, 1)
    assert (result.first_points, result.second_points) == (60, 97)
    assert result.outcome is SetOutcome.SECOND


def test_a_set_level_on_matches_and_points_is_drawn_and_worth_half_a_point_each():
    result = set_result([SetMatch(0, 0, (50, 40)), SetMatch(1, 0, (50, 40))])
    assert result.outcome is SetOutcome.DRAWN
    assert result.set_points() == (0.5, 0.5)


def test_set_seeds_are_fixed_by_the_tournament_seed_and_the_set_key():
    assert set_seed("secret", "r1t1/1") == set_seed("secret", "r1t1/1")
    assert set_seed("secret", "r1t1/1") != set_seed("secret", "r1t1/2")
    assert set_seed("secret", "r1t1/1") != set_seed("other", "r1t1/1")
    assert 0 <= set_seed("secret", "W1-1/1") < 2**63


def test_the_commitment_is_the_sha256_of_the_seed():
    assert secret_commitment("abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


FIRST_WINS = SetResult(2, 0, 100, 20)
SECOND_WINS = SetResult(0, 2, 20, 100)
DRAWN = SetResult(1, 1, 60, 60)


def decide(sets, planned=1, elimination=True, first_is_better_seed=True):
    return pairing_decision(
        sets, planned=planned, elimination=elimination, first_is_better_seed=first_is_better_seed
    )


def test_a_pairing_waits_for_its_planned_sets():
    assert not decide([FIRST_WINS], planned=2).finished


def test_a_round_robin_pairing_ends_after_its_sets_even_when_drawn():
    decision = decide([DRAWN], elimination=False)
    assert decision.finished and decision.winner is PairingWinner.NONE


def test_an_elimination_pairing_goes_to_the_entrant_with_more_sets():
    assert decide([FIRST_WINS, DRAWN, SECOND_WINS, SECOND_WINS], planned=4).winner is (
        PairingWinner.SECOND
    )


def test_sets_level_in_elimination_go_to_more_match_points_over_all_sets():
    sets = [FIRST_WINS, SetResult(1, 1, 30, 200)]
    decision = decide(sets, planned=2)
    assert decision.finished and decision.winner is PairingWinner.SECOND


def test_a_fully_level_elimination_pairing_plays_another_set():
    decision = decide([DRAWN])
    assert not decision.finished and decision.another_set


def test_after_the_extra_sets_the_better_seed_goes_through():
    sets = [DRAWN] * (1 + MAX_EXTRA_SETS)
    assert decide(sets).winner is PairingWinner.FIRST
    assert decide(sets, first_is_better_seed=False).winner is PairingWinner.SECOND


@pytest.mark.parametrize("extra", range(MAX_EXTRA_SETS))
def test_an_extra_set_that_breaks_the_tie_decides(extra):
    assert decide([DRAWN] * (1 + extra) + [SECOND_WINS]).winner is PairingWinner.SECOND
