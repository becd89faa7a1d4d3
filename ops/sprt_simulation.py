"""The sequential test (``tournaments.sprt``) run on simulated sets of known strength (pure).

A candidate ``true_elo`` stronger than the baseline wins, draws and loses sets at the rates
that give its expected score; the test runs until its verdict, many times over, and the
report counts the verdicts and the mean number of sets they took.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tournaments.sprt import SprtParameters, Verdict, expected_score, sprt_state


@dataclass(frozen=True)
class SprtSimulation:
    runs: int
    better: int
    not_better: int
    inconclusive: int
    mean_sets: float


def sprt_simulate(
    true_elo: float,
    parameters: SprtParameters,
    *,
    draw_rate: float,
    runs: int,
    rng: random.Random,
) -> SprtSimulation:
    """Run the test ``runs`` times on sets drawn for a candidate ``true_elo`` stronger."""
    score = expected_score(true_elo)
    # Draws take ``draw_rate`` of the sets, wins and losses share the rest to give ``score``.
    win = score - draw_rate / 2
    if not 0 <= win <= 1 - draw_rate:
        raise ValueError(f"a draw rate of {draw_rate} cannot give a score of {score:.3f}")
    verdicts = {verdict: 0 for verdict in Verdict}
    total_sets = 0
    for _ in range(runs):
        wins = draws = losses = 0
        state = sprt_state(0, 0, 0, parameters)
        while state.verdict is Verdict.PENDING:
            roll = rng.random()
            wins += roll < win
            draws += win <= roll < win + draw_rate
            losses += roll >= win + draw_rate
            state = sprt_state(wins, draws, losses, parameters)
        verdicts[state.verdict] += 1
        total_sets += state.sets
    return SprtSimulation(
        runs,
        verdicts[Verdict.BETTER],
        verdicts[Verdict.NOT_BETTER],
        verdicts[Verdict.INCONCLUSIVE],
        total_sets / runs,
    )
