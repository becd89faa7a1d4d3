from __future__ import annotations

import random

import pytest

from tournaments.brackets import (
    LoserOf,
    PairingStatus,
    Seed,
    Side,
    WinnerOf,
    bracket_progress,
    double_elimination,
    seed_order,
    single_elimination,
)

FIELDS = range(2, 34)


def entrants(n):
    return [f"s{seed}" for seed in range(1, n + 1)]


def play_out(bracket, field, choose):
    """Play every ready pairing with ``choose(state) -> winner`` until there is a champion."""
    winners = {}
    while True:
        progress = bracket_progress(bracket, field, winners)
        if progress.finished:
            return progress, winners
        assert progress.ready, "an unfinished bracket always has a pairing to play"
        for pairing in progress.ready:
            winners[pairing.key] = choose(pairing)


def better_seed(pairing):
    return min(pairing.first, pairing.second, key=lambda e: int(e[1:]))


def test_the_seed_order_keeps_the_top_seeds_apart():
    assert seed_order(2) == [1, 2]
    assert seed_order(4) == [1, 4, 2, 3]
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    with pytest.raises(ValueError, match="power of two"):
        seed_order(6)


@pytest.mark.parametrize("n", FIELDS)
def test_a_bracket_has_the_next_power_of_two_of_slots_and_the_byes_go_to_the_top_seeds(n):
    bracket = single_elimination(n)
    assert bracket.slots >= n > bracket.slots // 2
    first_round = [pairing for pairing in bracket.pairings if pairing.round == 1]
    assert len(first_round) == bracket.slots // 2
    seeds = [source.number for pairing in first_round for source in pairing.sources]
    assert sorted(seeds) == list(range(1, bracket.slots + 1))
    progress = bracket_progress(bracket, entrants(n), {})
    walkovers = [progress.pairings[g.key] for g in first_round]
    given_byes = [g.first for g in walkovers if g.status is PairingStatus.WALKOVER]
    assert len(given_byes) == bracket.slots - n
    assert sorted(given_byes, key=lambda e: int(e[1:])) == entrants(n)[: bracket.slots - n]
    assert all(g.first is not None for g in walkovers), "no first-round pairing has two byes"


@pytest.mark.parametrize("n", FIELDS)
def test_single_elimination_plays_one_pairing_per_entrant_knocked_out(n):
    progress, winners = play_out(single_elimination(n), entrants(n), better_seed)
    assert len(winners) == n - 1
    assert progress.champion == "s1"
    places = progress.placements(entrants(n))
    assert places["s1"] == 1 and places["s2"] == 2
    if n >= 4:
        assert places["s3"] == places["s4"] == 3, "both semi-final losers share third"


@pytest.mark.parametrize("n", FIELDS)
def test_single_elimination_with_random_results_ends_with_every_place_taken(n):
    rng = random.Random(n)
    progress, _ = play_out(single_elimination(n), entrants(n), lambda g: rng.choice(g.sides))
    places = progress.placements(entrants(n))
    assert None not in places.values()
    assert sorted(places.values())[:2] == [1, 2]


@pytest.mark.parametrize("n", FIELDS)
def test_double_elimination_without_the_reset_when_the_winners_champion_takes_the_final(n):
    progress, winners = play_out(double_elimination(n), entrants(n), better_seed)
    assert progress.pairings["GF2"].status is PairingStatus.SKIPPED
    assert "GF2" not in winners
    assert len(winners) == 2 * n - 2, "everyone but the champion loses twice"
    assert progress.champion == "s1"
    places = progress.placements(entrants(n))
    assert places["s1"] == 1 and places["s2"] == 2


@pytest.mark.parametrize("n", FIELDS)
def test_double_elimination_resets_the_final_when_the_losers_champion_wins_it(n):
    def losers_side_takes_the_first_final(pairing):
        return pairing.second if pairing.key == "GF" else better_seed(pairing)

    progress, winners = play_out(
        double_elimination(n), entrants(n), losers_side_takes_the_first_final
    )
    assert progress.pairings["GF2"].status is PairingStatus.PLAYED
    assert len(winners) == 2 * n - 1
    assert progress.champion == "s1", "seed 1 wins the reset"
    assert progress.placements(entrants(n))["s2"] == 2


@pytest.mark.parametrize("n", FIELDS)
def test_in_double_elimination_everyone_but_the_champion_is_out_after_two_losses(n):
    rng = random.Random(1000 + n)
    progress, winners = play_out(double_elimination(n), entrants(n), lambda g: rng.choice(g.sides))
    losses = {entrant: 0 for entrant in entrants(n)}
    for key, winner in winners.items():
        pairing = progress.pairings[key]
        losses[pairing.second if winner == pairing.first else pairing.first] += 1
    assert losses[progress.champion] <= 1
    assert all(count == 2 for entrant, count in losses.items() if entrant != progress.champion)
    assert set(progress.eliminated) == set(entrants(n)) - {progress.champion}


def test_a_two_entrant_double_elimination_is_a_final_and_its_reset():
    bracket = double_elimination(2)
    assert [pairing.key for pairing in bracket.pairings] == ["W1-1", "GF", "GF2"]
    assert bracket.pairing("GF").sources == (WinnerOf("W1-1"), LoserOf("W1-1"))


def test_losers_of_the_winners_bracket_drop_in_reverse_order():
    bracket = double_elimination(8)
    assert bracket.pairing("L1-1").sources == (LoserOf("W1-1"), LoserOf("W1-2"))
    assert bracket.pairing("L2-1").sources == (WinnerOf("L1-1"), LoserOf("W2-2"))
    assert bracket.pairing("L2-2").sources == (WinnerOf("L1-2"), LoserOf("W2-1"))
    assert bracket.pairing("L4-1").sources == (WinnerOf("L3-1"), LoserOf("W3-1"))
    assert {pairing.side for pairing in bracket.pairings} == {Side.WINNERS, Side.LOSERS, Side.FINAL}
    assert bracket.pairing("W1-1").sources == (Seed(1), Seed(8))


def test_a_bye_in_the_winners_bracket_becomes_a_walkover_in_the_losers_bracket():
    progress = bracket_progress(double_elimination(3), entrants(3), {"W1-2": "s2"})
    assert progress.pairings["W1-1"].status is PairingStatus.WALKOVER
    assert progress.pairings["L1-1"].status is PairingStatus.WALKOVER
    assert progress.pairings["L1-1"].winner == "s3"
    assert progress.pairings["W2-1"].status is PairingStatus.READY


def test_a_winner_who_did_not_play_the_pairing_is_refused():
    with pytest.raises(ValueError, match="did not play"):
        bracket_progress(single_elimination(4), entrants(4), {"W1-1": "s2"})


def test_places_are_shared_by_entrants_out_at_the_same_stage():
    progress, _ = play_out(single_elimination(8), entrants(8), better_seed)
    places = progress.placements(entrants(8))
    assert [places[f"s{seed}"] for seed in range(1, 9)] == [1, 2, 3, 3, 5, 5, 5, 5]


def test_a_place_is_given_once_every_pairing_of_its_stage_is_decided():
    progress = bracket_progress(single_elimination(4), entrants(4), {"W1-1": "s1"})
    assert progress.placements(entrants(4)) == dict.fromkeys(entrants(4))
    progress = bracket_progress(single_elimination(4), entrants(4), {"W1-1": "s1", "W1-2": "s3"})
    places = progress.placements(entrants(4))
    assert places == {"s1": None, "s2": 3, "s3": None, "s4": 3}
    assert not progress.finished
