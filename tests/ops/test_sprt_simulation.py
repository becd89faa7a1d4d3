"""The sequential test's error rates, on simulated sets (``ops.sprt_simulation``)."""

from __future__ import annotations

import math
import random

from ops.sprt_simulation import sprt_simulate
from tournaments.sprt import SprtParameters

DEFAULTS = SprtParameters()
RUNS = 1000
DRAW_RATE = 0.2


def within(rate: float, chosen: float) -> bool:
    """``rate``, measured over ``RUNS`` runs, agrees with a true rate of at most ``chosen``:
    at most two standard errors of a binomial above it."""
    return rate <= chosen + 2 * math.sqrt(chosen * (1 - chosen) / RUNS)


def test_a_candidate_no_better_is_called_better_at_most_alpha_of_the_time():
    simulation = sprt_simulate(
        DEFAULTS.elo0, DEFAULTS, draw_rate=DRAW_RATE, runs=RUNS, rng=random.Random(11)
    )
    print(f"H0 true: {simulation}")
    assert within(simulation.better / RUNS, DEFAULTS.alpha), simulation
    assert simulation.inconclusive / RUNS < 0.02, simulation
    # The average length docs/ladder.md states: about 210 sets at these defaults.
    assert 150 < simulation.mean_sets < 270


def test_a_candidate_elo1_stronger_is_missed_at_most_beta_of_the_time():
    simulation = sprt_simulate(
        DEFAULTS.elo1, DEFAULTS, draw_rate=DRAW_RATE, runs=RUNS, rng=random.Random(12)
    )
    print(f"H1 true: {simulation}")
    assert within(simulation.not_better / RUNS, DEFAULTS.beta), simulation
    assert simulation.inconclusive / RUNS < 0.02, simulation
    assert 150 < simulation.mean_sets < 270
