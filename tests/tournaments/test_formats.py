from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    maximum_matching_size,
    round_robin_rounds,
    swiss_max_rounds,
    swiss_round,
    swiss_round_count,
)


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


def test_swiss_pairs_each_entrant_with_the_next_one_down_the_ranking():
    paired = swiss_round(list("abcdef"), played=set(), had_bye=set())
    assert paired.pairs == [("a", "b"), ("c", "d"), ("e", "f")]
    assert paired.bye is None and paired.rematches == 0


def test_swiss_skips_an_opponent_already_met_for_the_next_one():
    paired = swiss_round(list("abcd"), played={frozenset("ab")}, had_bye=set())
    assert paired.pairs == [("a", "c"), ("b", "d")]


def test_swiss_looks_ahead_so_the_bottom_of_the_field_is_not_left_with_a_rematch():
    # Greedy a-b would leave c-d, who met already; the only rematch-free pairing is a-c, b-d.
    paired = swiss_round(list("abcd"), played={frozenset("cd")}, had_bye=set())
    assert paired.pairs == [("a", "c"), ("b", "d")]
    assert paired.rematches == 0


def test_swiss_allows_a_rematch_only_when_no_pairing_avoids_one():
    everyone_met = {frozenset(pair) for pair in itertools.combinations("abcd", 2)}
    paired = swiss_round(list("abcd"), played=everyone_met, had_bye=set())
    assert paired.pairs == [("a", "b"), ("c", "d")]
    assert paired.rematches == 2


def test_the_swiss_bye_goes_to_the_lowest_ranked_entrant_without_one():
    assert swiss_round(list("abcde"), played=set(), had_bye=set()).bye == "e"
    assert swiss_round(list("abcde"), played=set(), had_bye={"e"}).bye == "d"


def test_the_swiss_bye_moves_up_when_the_lowest_would_leave_a_forced_rematch():
    # Of a, b, c and d only a and b have not met: with e out, c and d would meet again.
    played = {frozenset("cd"), frozenset("ac"), frozenset("bd"), frozenset("ad"), frozenset("bc")}
    paired = swiss_round(list("abcde"), played=played, had_bye=set())
    assert paired.rematches == 0
    assert paired.bye == "d"
    assert paired.pairs == [("a", "b"), ("c", "e")]


def _brute_force_rematch_free_exists(field, played):
    if not field:
        return True
    top, rest = field[0], field[1:]
    return any(
        frozenset((top, other)) not in played
        and _brute_force_rematch_free_exists([e for e in rest if e != other], played)
        for other in rest
    )


def _rematch_free_round_exists(ranking, played, had_bye):
    if len(ranking) % 2 == 0:
        return _brute_force_rematch_free_exists(ranking, played)
    candidates = [e for e in ranking if e not in had_bye] or ranking
    return any(
        _brute_force_rematch_free_exists([e for e in ranking if e != bye], played)
        for bye in candidates
    )


@settings(max_examples=60, deadline=None)
@given(size=st.integers(min_value=2, max_value=9), seed=st.integers(0, 10**6))
def test_a_swiss_tournament_never_rematches_while_an_alternative_exists(size, seed):
    rng = random.Random(seed)
    field = [f"e{i}" for i in range(size)]
    scores = dict.fromkeys(field, 0)
    played: set[frozenset] = set()
    byes: list[str] = []
    for _ in range(swiss_max_rounds(size)):
        ranking = sorted(field, key=lambda e: (-scores[e], field.index(e)))
        avoidable = _rematch_free_round_exists(ranking, played, set(byes))
        paired = swiss_round(ranking, played=played, had_bye=set(byes))
        assert paired.rematches == 0 or not avoidable
        seated = [e for pair in paired.pairs for e in pair] + [paired.bye] * (
            paired.bye is not None
        )
        assert sorted(seated) == sorted(field)
        for a, b in paired.pairs:
            played.add(frozenset((a, b)))
            scores[rng.choice((a, b))] += 1
        if paired.bye is not None:
            byes.append(paired.bye)
            scores[paired.bye] += 1
    assert len(byes) == len(set(byes)), "nobody has a second bye"


@pytest.mark.parametrize(("entrants", "rounds"), [(2, 1), (3, 2), (8, 3), (9, 4), (33, 6)])
def test_the_default_swiss_length_is_log2_of_the_field(entrants, rounds):
    assert swiss_round_count(entrants) == rounds


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(min_value=0, max_value=9),
    edges=st.sets(st.tuples(st.integers(0, 8), st.integers(0, 8))),
)
def test_the_blossom_matching_is_as_large_as_the_brute_force_one(size, edges):
    edges = {(a, b) for a, b in edges if a < b < size}
    neighbours = [[b for b in range(size) if (min(a, b), max(a, b)) in edges] for a in range(size)]

    def largest(free):
        if not free:
            return 0
        top, rest = free[0], free[1:]
        best = largest(rest)
        for other in rest:
            if (top, other) in edges:
                best = max(best, 1 + largest([v for v in rest if v != other]))
        return best

    assert maximum_matching_size(neighbours) == largest(list(range(size)))


def test_the_blossom_matching_finds_the_augmenting_path_through_an_odd_cycle():
    # A triangle 0-1-2 with a tail 2-3 and 0-4: a perfect-ish matching needs the blossom.
    neighbours = [[1, 2, 4], [0, 2], [0, 1, 3], [2], [0]]
    assert maximum_matching_size(neighbours) == 2
    hexagon_and_pendants = [[1, 5, 6], [0, 2], [1, 3], [2, 4], [3, 5], [4, 0], [0]]
    assert maximum_matching_size(hexagon_and_pendants) == 3
