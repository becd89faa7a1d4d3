"""The simulation of what duplicate sets buy: Kendall's tau and a small run."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command

from arena.builtin.strategies import load
from games.rules import get_game
from ops.ranking_simulation import kendall_tau, mixed_strategy, simulate


def test_kendall_tau_is_one_for_the_true_order_and_minus_one_for_its_reverse():
    truth = [3, 2, 1, 0]
    assert kendall_tau(truth, truth) == 1.0
    assert kendall_tau(list(reversed(truth)), truth) == -1.0
    assert kendall_tau([2, 3, 1, 0], truth) == pytest.approx(4 / 6)


def test_kendall_tau_compares_orderings_of_the_same_items_only():
    with pytest.raises(ValueError):
        kendall_tau([1, 2], [1, 3])


@pytest.mark.parametrize(("skill", "strategy"), [(1.0, "snag_heuristic"), (0.0, "random")])
def test_a_mixed_strategy_at_the_extremes_plays_like_one_strategy(skill, strategy):
    game = get_game("snag")
    state = game.new_match(3)
    chooser, pure = mixed_strategy("snag", skill), load(strategy)
    for _ in range(20):
        observation = game.observation(state, state.to_play)
        rng_mixed, rng_pure = random.Random(len(state.orders)), random.Random(len(state.orders))
        rng_pure.random()  # the mixed strategy draws once to pick which strategy decides
        action = chooser(observation, rng_mixed)
        assert action == pure(observation, rng_pure)
        state = game.apply(state, action)


def test_a_small_simulation_reports_a_tau_per_checkpoint_for_both_schemes():
    results = simulate(
        game_id="snag", bots=3, matches=12, checkpoints=[6], runs=1, seed=1, options={"target": 5}
    )
    assert [point.matches for point in results] == [6, 12]
    for point in results:
        assert -1.0 <= point.tau_single <= 1.0 and -1.0 <= point.tau_duplicate <= 1.0


def test_the_simulation_is_repeatable():
    kwargs = dict(game_id="snag", bots=3, matches=6, checkpoints=[], runs=1, seed=7)
    assert simulate(**kwargs, options={"target": 5}) == simulate(**kwargs, options={"target": 5})


def test_the_command_prints_the_table(capsys):
    call_command(
        "simulate_ranking", "--bots", "3", "--matches", "8", "--runs", "1", "--target", "5"
    )
    out = capsys.readouterr().out
    assert "Kendall's tau" in out and "16 matches" in out
