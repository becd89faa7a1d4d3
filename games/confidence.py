"""Confidence intervals of a proportion (pure: no Django, no I/O).

One implementation of the Wilson score interval for every estimate of a rate the project
reports: a bot's win rate (``ops.strength``) and a challenge's or a version test's mean set
score (``tournaments.sprt``). Unlike the normal approximation ``p ± z·sqrt(p(1-p)/n)``,
which collapses to a point when every trial succeeds or every one fails (5 wins of 5 give
[1, 1]), Wilson's interval keeps its coverage at the edges: 5 of 5 give [0.57, 1].
"""

from __future__ import annotations

import math

#: The normal quantile of a two-sided 95% interval.
Z_95 = 1.96


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of ``successes / trials``; (0, 1) before any trial.

    ``successes`` may be fractional (a drawn set counts one half): the interval is then
    that of the mean score read as a proportion, wider than it need be, since draws make a
    score vary less than a win-or-lose proportion of the same mean.
    """
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be from 0 to {trials}, got {successes}")
    p = successes / trials
    spread = z * z / trials
    centre = (p + spread / 2) / (1 + spread)
    half = z * math.sqrt(p * (1 - p) / trials + spread / (4 * trials)) / (1 + spread)
    # At p = 0 or 1 the end is exactly 0 or 1; rounding would leave 1e-17 either side.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high
