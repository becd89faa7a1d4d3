"""The Wilson score interval (``games.confidence``)."""

from __future__ import annotations

from math import comb

import pytest

from games.confidence import wilson_interval


def coverage(trials: int, rate: float) -> float:
    """The exact chance that the interval of a binomial count holds the true ``rate``."""
    return sum(
        comb(trials, k) * rate**k * (1 - rate) ** (trials - k)
        for k in range(trials + 1)
        if wilson_interval(k, trials)[0] <= rate <= wilson_interval(k, trials)[1]
    )


@pytest.mark.parametrize("trials", [5, 10, 20, 50])
@pytest.mark.parametrize("rate", [0.5, 0.9, 0.95, 0.97, 0.99])
def test_the_interval_keeps_its_coverage_near_a_rate_of_1(trials, rate):
    # The normal approximation covers 0.97 with 5 trials 14% of the time (5 of 5 gives
    # [1, 1]); Wilson's stays near the 95% it promises.
    assert coverage(trials, rate) >= 0.85
    assert coverage(trials, 1 - rate) == pytest.approx(coverage(trials, rate))


def test_all_or_nothing_reaches_the_edge_exactly_and_no_further():
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + 1.96**2)), 1.0)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(1.96**2 / (10 + 1.96**2)))


def test_no_trial_says_nothing_and_a_count_out_of_range_is_refused():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="from 0 to 4"):
        wilson_interval(5, 4)


def test_a_fractional_count_lies_between_its_neighbours():
    low, high = wilson_interval(2.5, 5)
    assert wilson_interval(2, 5)[0] < low < wilson_interval(3, 5)[0]
    assert wilson_interval(2, 5)[1] < high < wilson_interval(3, 5)[1]
