"""The ladder's matchmaker on simulated bots of known strength (``ops.ladder_simulation``)."""

from __future__ import annotations

from ops.ladder_simulation import LadderScenario, ladder_simulate


def test_the_simulated_ladder_finds_the_true_order_starves_nobody_and_places_a_newcomer():
    scenario = LadderScenario()
    report = ladder_simulate(scenario, seed=0)
    print(report)

    assert report.tau >= 0.9
    assert scenario.rules.sets_per_pairing > 1, "pairings play their sets as series"
    assert report.longest_wait_seconds <= scenario.wait_bound_seconds
    assert report.newcomer_sets_to_place is not None
    # docs/ladder.md gives the spread over runs (manage.py ladder_simulate): median 88.
    assert report.newcomer_sets_to_place <= 200
