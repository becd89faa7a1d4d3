from __future__ import annotations

import itertools

import pytest

from tournaments.formats import round_robin_rounds


@pytest.mark.parametrize("size", range(2, 12))
def test_a_round_robin_pairs_every_two_entrants_exactly_once(size):
    entrants = [f"bot{i}" for i in range(size)]
    pairs = [frozenset(pair) for rnd in round_robin_rounds(entrants) for pair in rnd]
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, itertools.combinations(entrants, 2)))
    assert len(set(pairs)) == len(pairs)


@pytest.mark.parametrize("size", range(2, 12))
def test_nobody_plays_twice_in_one_round(size):
    for rnd in round_robin_rounds(list(range(size))):
        seated = [entrant for pair in rnd for entrant in pair]
        assert len(seated) == len(set(seated))


def test_an_odd_field_has_one_entrant_resting_each_round():
    rounds = round_robin_rounds(["a", "b", "c", "d", "e"])
    assert len(rounds) == 5 and all(len(rnd) == 2 for rnd in rounds)


def test_pairs_list_the_earlier_entrant_first():
    entrants = ["z", "y", "x", "w"]
    for rnd in round_robin_rounds(entrants):
        for a, b in rnd:
            assert entrants.index(a) < entrants.index(b)


def test_fewer_than_two_entrants_make_no_rounds():
    assert round_robin_rounds(["solo"]) == []
