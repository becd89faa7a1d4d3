"""Who plays whom on the ladder (``ladder.matchmaking``)."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from ladder.matchmaking import LadderVersion, MatchmakingRules, matchmake, pairing_sizes

RULES = MatchmakingRules(placement_sets=10, pair_cap=3, starving_seconds=600)
NOW = 100_000.0


def settled(id: int, mu: float, **changes) -> LadderVersion:
    """A version past placement, with a settled rating, that played a minute ago."""
    fields = dict(id=id, mu=mu, sigma=1.0, sets=40, recent_sets=5, waiting_since=NOW - 60)
    return LadderVersion(**{**fields, **changes})


def test_a_new_version_is_served_first_and_its_first_opponent_is_the_middle_of_the_table():
    field = [settled(i, mu=30 - i) for i in range(1, 10)]
    new = LadderVersion(id=99, mu=25, sigma=8.3, sets=0, recent_sets=0, waiting_since=NOW)

    pairs = matchmake([*field, new], recent_pairs={}, capacity=1, now=NOW, rules=RULES)

    assert pairs == [(99, 5)]  # 9 others from the top: the fifth is the middle


def test_placement_opponents_spread_over_the_table():
    field = [settled(i, mu=30 - i) for i in range(1, 12)]
    opponents = []
    for sets in range(4):
        new = LadderVersion(id=99, mu=25, sigma=8, sets=sets, recent_sets=sets, waiting_since=NOW)
        [(_, opponent)] = matchmake(
            [*field, new], recent_pairs={}, capacity=1, now=NOW, rules=RULES
        )
        opponents.append(opponent)
    assert opponents == [6, 3, 9, 2]  # middle, upper quarter, lower quarter, near the top


def test_placement_takes_one_spot_of_the_spread_per_pairing_however_many_sets_it_plays():
    rules = dataclasses.replace(RULES, sets_per_pairing=3)
    field = [settled(i, mu=30 - i) for i in range(1, 12)]
    opponents = []
    for sets in (0, 3, 6, 9):
        new = LadderVersion(id=99, mu=25, sigma=8, sets=sets, recent_sets=sets, waiting_since=NOW)
        [(_, opponent)] = matchmake(
            [*field, new], recent_pairs={}, capacity=1, now=NOW, rules=rules
        )
        opponents.append(opponent)
    assert opponents == [6, 3, 9, 2]  # as one set a pairing: middle, quarters, near the top


def test_capacity_is_cut_into_whole_pairings_and_the_rest_leaves_none_idle():
    rules = dataclasses.replace(RULES, sets_per_pairing=3)
    assert pairing_sizes(6, rules) == [3, 3]
    assert pairing_sizes(7, rules) == [3, 3, 1]
    assert pairing_sizes(2, rules) == [2]
    assert pairing_sizes(0, rules) == [] and pairing_sizes(-4, rules) == []
    assert pairing_sizes(2, RULES) == [1, 1]


def test_past_placement_the_opponent_is_the_nearest_in_rating_within_the_window():
    field = [settled(1, mu=30), settled(2, mu=26), settled(3, mu=20)]
    chooser = settled(9, mu=25.5, recent_sets=0)

    assert matchmake([*field, chooser], recent_pairs={}, capacity=1, now=NOW, rules=RULES) == [
        (9, 2)
    ]


def test_the_pair_cap_sends_a_version_to_another_opponent():
    field = [settled(1, mu=30), settled(2, mu=26), settled(3, mu=20)]
    chooser = settled(9, mu=25.5, recent_sets=0)
    capped = {frozenset((9, 2)): 3}

    pairs = matchmake([*field, chooser], recent_pairs=capped, capacity=1, now=NOW, rules=RULES)

    assert pairs == [(9, 1)]


def test_a_starving_version_comes_first():
    hungry = settled(1, mu=10, recent_sets=30, waiting_since=NOW - 601)
    others = [settled(i, mu=30 + i, recent_sets=0) for i in (2, 3)]

    pairs = matchmake([*others, hungry], recent_pairs={}, capacity=1, now=NOW, rules=RULES)

    assert pairs[0][0] == 1


def test_past_every_cap_the_pair_that_met_least_meets_again():
    chooser = settled(9, mu=25, recent_sets=0)
    field = [settled(1, mu=25), settled(2, mu=40)]
    met = {frozenset((9, 1)): 7, frozenset((9, 2)): 4}

    pairs = matchmake([*field, chooser], recent_pairs=met, capacity=1, now=NOW, rules=RULES)

    assert pairs == [(9, 2)]


def test_a_busy_version_is_not_paired_and_capacity_is_respected():
    versions = [settled(i, mu=20 + i, recent_sets=0) for i in range(1, 9)]
    versions[0] = settled(1, mu=21, busy=True)

    pairs = matchmake(versions, recent_pairs={}, capacity=2, now=NOW, rules=RULES)

    assert len(pairs) == 2
    assert all(1 not in pair for pair in pairs)


@given(
    st.lists(
        st.tuples(
            st.floats(0, 50),
            st.floats(0.5, 9),
            st.integers(0, 30),
            st.integers(0, 2000),
            st.booleans(),
        ),
        min_size=0,
        max_size=20,
    ),
    st.integers(0, 10),
)
def test_every_pair_is_two_distinct_free_versions_each_used_once(specs, capacity):
    versions = [
        LadderVersion(i, mu, sigma, sets, sets // 2, NOW - wait, busy)
        for i, (mu, sigma, sets, wait, busy) in enumerate(specs)
    ]
    pairs = matchmake(versions, recent_pairs={}, capacity=capacity, now=NOW, rules=RULES)

    used = [version for pair in pairs for version in pair]
    assert len(pairs) <= capacity and len(used) == len(set(used))
    free = {v.id for v in versions if not v.busy}
    assert set(used) <= free
    # Nobody free is left unpaired while there is capacity and an uncapped partner.
    if len(pairs) < capacity:
        assert len(free - set(used)) <= 1
