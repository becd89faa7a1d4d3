"""The sequential test of "is B better than A?" on simulated sets (``tournaments.sprt``)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.confidence import wilson_interval
from tournaments.sprt import (
    ELO_LIMIT,
    SprtParameters,
    Verdict,
    elo_interval,
    elo_of_score,
    log_likelihood_ratio,
    score_interval,
    sprt_state,
)

DEFAULTS = SprtParameters()


def test_a_candidate_that_wins_every_set_is_called_better_within_thirty_sets():
    wins = next(n for n in range(1, 100) if sprt_state(n, 0, 0, DEFAULTS).verdict != "pending")
    assert sprt_state(wins, 0, 0, DEFAULTS).verdict is Verdict.BETTER
    assert wins <= 30


def test_a_candidate_that_loses_every_set_is_called_not_better_within_thirty_sets():
    losses = next(n for n in range(1, 100) if sprt_state(0, 0, n, DEFAULTS).verdict != "pending")
    assert sprt_state(0, 0, losses, DEFAULTS).verdict is Verdict.NOT_BETTER
    assert losses <= 30


def test_reaching_the_cap_between_the_bounds_is_inconclusive():
    parameters = SprtParameters(max_sets=10)
    assert sprt_state(5, 0, 5, parameters).verdict is Verdict.INCONCLUSIVE
    assert sprt_state(4, 0, 5, parameters).verdict is Verdict.PENDING


def test_the_bounds_are_walds():
    assert DEFAULTS.upper_bound == pytest.approx(math.log(0.95 / 0.05))
    assert DEFAULTS.lower_bound == pytest.approx(math.log(0.05 / 0.95))


@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300))
def test_one_more_won_set_never_lowers_the_llr_and_one_more_lost_never_raises_it(w, d, lost):
    llr = log_likelihood_ratio(w, d, lost, 0, 50)
    assert log_likelihood_ratio(w + 1, d, lost, 0, 50) >= llr - 1e-9
    assert log_likelihood_ratio(w, d, lost + 1, 0, 50) <= llr + 1e-9


@pytest.mark.parametrize(
    "bad", [{"elo0": 10, "elo1": 10}, {"alpha": 0.5}, {"beta": 0}, {"max_sets": 1}]
)
def test_parameters_out_of_range_are_refused(bad):
    with pytest.raises(ValueError):
        SprtParameters(**bad)


def test_the_score_interval_narrows_with_more_sets_and_holds_the_mean():
    few, many = score_interval(6, 2, 2), score_interval(60, 20, 20)
    assert few[0] < many[0] < 0.7 < many[1] < few[1]


def test_the_llr_before_any_set_is_exactly_zero_not_a_trace_of_the_pseudo_counts():
    for llr in (log_likelihood_ratio(0, 0, 0, 0, 50), sprt_state(0, 0, 0, DEFAULTS).llr):
        assert llr == 0.0 and math.copysign(1.0, llr) == 1.0  # not -0.0 either
    assert sprt_state(0, 0, 0, DEFAULTS).verdict is Verdict.PENDING
    assert log_likelihood_ratio(0, 0, 1, 0, 50) < 0 < log_likelihood_ratio(1, 0, 0, 0, 50)


def test_five_sets_won_of_five_give_a_score_interval_from_0_57_to_1_not_a_point():
    low, high = score_interval(5, 0, 0)
    assert high == 1.0 and low == pytest.approx(5 / (5 + 1.96**2)) == pytest.approx(0.5655, 1e-3)
    assert elo_interval(5, 0, 0) == (pytest.approx(elo_of_score(low)), ELO_LIMIT)
    assert 40 < elo_interval(5, 0, 0)[0] < 50


def test_five_sets_lost_of_five_mirror_five_won():
    low, high = score_interval(0, 0, 5)
    won_low, _ = score_interval(5, 0, 0)
    assert low == 0.0 and high == pytest.approx(1 - won_low)
    assert elo_interval(0, 0, 5) == (-ELO_LIMIT, pytest.approx(-elo_interval(5, 0, 0)[0]))


def test_a_draw_counts_one_half_of_a_set_in_the_score_interval():
    assert score_interval(0, 10, 0) == wilson_interval(5, 10)
    low, high = score_interval(0, 10, 0)
    assert low == pytest.approx(1 - high) and low < 0.5 < high


def test_the_elo_of_a_score_is_cut_at_the_limit_and_finite_at_0_and_1():
    assert elo_of_score(0.0) == -ELO_LIMIT and elo_of_score(1.0) == ELO_LIMIT
    assert elo_of_score(0.9999) == ELO_LIMIT and elo_of_score(0.0001) == -ELO_LIMIT
    assert elo_of_score(0.5) == 0.0
    assert elo_of_score(0.75) == pytest.approx(190.8, abs=0.1)
    assert score_interval(0, 0, 0) == (0.0, 1.0)
    assert elo_interval(0, 0, 0) == (-ELO_LIMIT, ELO_LIMIT)
