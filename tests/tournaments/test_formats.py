from __future__ import annotations

import itertools
from collections import Counter

import pytest

from tournaments.formats import round_robin_rounds, swiss_max_rounds, swiss_round_count


@pytest.mark.parametrize("size", range(2, 12))
def test_a_round_robin_pairs_every_two_entrants_exactly_once(size):
    entrants = [f"bot{i}" for i in range(size)]
    pairs = [frozenset(pair) for rnd in round_robin_rounds(entrants) for pair in rnd]
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, itertools.combinations(entrants, 2)))
    assert len(set(pairs)) == len(pairs)


@pytest.mark.parametrize("size", range(2, 12))
def test_a_double_round_robin_pairs_every_two_entrants_twice_once_each_way(size):
    entrants = list(range(size))
    pairs = [pair for rnd in round_robin_rounds(entrants, cycles=2) for pair in rnd]
    assert Counter(frozenset(pair) for pair in pairs) == {
        frozenset(pair): 2 for pair in itertools.combinations(entrants, 2)
    }
    assert len(set(pairs)) == len(pairs), "the second meeting swaps who is first"


@pytest.mark.parametrize("size", range(2, 12))
def test_nobody_plays_twice_in_one_round(size):
    for rnd in round_robin_rounds(list(range(size)), cycles=2):
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


@pytest.mark.parametrize(("entrants", "rounds"), [(2, 1), (3, 2), (8, 3), (9, 4), (33, 6)])
def test_the_default_swiss_length_is_log2_of_the_field(entrants, rounds):
    assert swiss_round_count(entrants) == rounds


@pytest.mark.parametrize(("entrants", "rounds"), [(2, 1), (3, 3), (8, 7), (9, 9)])
def test_a_swiss_is_at_most_a_round_robins_worth_of_rounds(entrants, rounds):
    assert swiss_max_rounds(entrants) == rounds
