"""The ladder's matchmaker on simulated bots of known strength (``ops.ladder_simulation``)."""

from __future__ import annotations

from ops.ladder_simulation import LadderScenario, ladder_simulate


def test_the_simulated_ladder_finds_the_true_order_starves_nobody_and_places_a_newcomer():
    scenario = LadderScenario()
    report = ladder_simulate(scenario, seed=0)
    print(report)

    assert report.tau >= 0.9
    bound = scenario.rules.starving_seconds + scenario.tick_seconds + scenario.set_seconds[1]
    assert report.longest_wait_seconds <= bound
    assert report.newcomer_sets_to_place is not None
    # docs/ladder.md gives the spread over runs (manage.py ladder_simulate): median 72.
    assert report.newcomer_sets_to_place <= 200
