"""Swiss pairing (``tournaments.swiss``): the Dutch system from the FIDE handbook's examples,
Monrad as Baize always paired it, and properties checked against brute force."""

from __future__ import annotations

import ast
import itertools
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import swiss_max_rounds
from tournaments.swiss import PairingSystem, exchanges, has_perfect_pairing, swiss_round

DUTCH, MONRAD = PairingSystem.DUTCH, PairingSystem.MONRAD


def pair(ranking, scores=None, played="", had_bye=(), system=DUTCH):
    """Pair entrants 1..n (or ``ranking``), all on 0 points unless ``scores`` are given;
    ``played`` lists who met as digit pairs, "15 26": 1 met 5 and 2 met 6."""
    ranking = list(range(1, ranking + 1)) if isinstance(ranking, int) else ranking
    scores = scores or dict.fromkeys(ranking, 0.0)
    met = {frozenset(int(digit) for digit in pair) for pair in played.split()}
    return swiss_round(ranking, scores=scores, played=met, had_bye=set(had_bye), system=system)


def ranked(scores):
    return sorted(scores, key=lambda entrant: (-scores[entrant], entrant))


ROUND_ONE_OF_EIGHT = "15 26 37 48"


# --- The Dutch system, from the handbook's examples ---------------------------------------


def test_round_one_of_eight_pairs_the_top_half_with_the_bottom_half():
    paired = pair(8)
    assert paired.pairs == ((1, 5), (2, 6), (3, 7), (4, 8))
    assert paired.bye is None and paired.rematches == 0


def test_round_one_of_ten_pairs_one_with_six():
    assert pair(10).pairs == ((1, 6), (2, 7), (3, 8), (4, 9), (5, 10))


def test_round_one_of_nine_gives_the_lowest_the_bye_and_pairs_the_rest_by_halves():
    paired = pair(9)
    assert paired.bye == 9
    assert paired.pairs == ((1, 5), (2, 6), (3, 7), (4, 8))


def test_round_two_pairs_each_score_group_by_its_own_halves():
    # The top half won round one: 1-4 on one point, 5-8 on none.
    scores = {1: 1, 2: 1, 3: 1, 4: 1, 5: 0, 6: 0, 7: 0, 8: 0}
    paired = pair(ranked(scores), scores, played=ROUND_ONE_OF_EIGHT)
    assert paired.pairs == ((1, 3), (2, 4), (5, 7), (6, 8))


def test_an_odd_score_group_floats_its_lowest_down_to_meet_the_top_of_the_next_group():
    # Round one: 1, 3 and 4 won, 2-6 was drawn. The one-point group {1, 3, 4} pairs 1-3 and
    # floats 4, who meets 2, the top of the half-point group; 6 floats on to meet 5.
    scores = {1: 1, 3: 1, 4: 1, 2: 0.5, 6: 0.5, 5: 0, 7: 0, 8: 0}
    paired = pair(ranked(scores), scores, played=ROUND_ONE_OF_EIGHT)
    assert paired.pairs == ((1, 3), (4, 2), (6, 5), (7, 8))


def test_a_rematch_is_avoided_by_transposing_s2():
    # Every game of round one was drawn: one group of eight whose halves, 1-5 and so on,
    # would all be rematches. The first order of S2 that works is 6 5 8 7.
    scores = dict.fromkeys(range(1, 9), 0.5)
    paired = pair(8, scores, played=ROUND_ONE_OF_EIGHT)
    assert paired.pairs == ((1, 6), (2, 5), (3, 8), (4, 7))
    assert paired.rematches == 0


def test_when_no_order_of_s2_works_the_lowest_of_s1_is_exchanged_with_the_top_of_s2():
    # S1 = 1 2, S2 = 3 4, and 1 has met both of S2: the first exchange, 2 for 3, lets 1
    # meet 2 and 3 meet 4.
    scores = dict.fromkeys(range(1, 5), 1.0)
    assert pair(4, scores, played="13 14").pairs == ((1, 2), (3, 4))


def test_exchanges_come_in_the_handbooks_order():
    # C.04.3 D.2 for S1 = 1..5 and S2 = 6..10: fewest swapped, then the smallest difference
    # of sums, then the highest moved out of S1, then the lowest moved into S1.
    singles = list(itertools.islice(exchanges(range(1, 6), range(6, 11)), 10))
    assert [(s1[0], s2[0]) for s1, s2 in singles] == [
        (5, 6),
        (5, 7),
        (4, 6),
        (5, 8),
        (4, 7),
        (3, 6),
        (5, 9),
        (4, 8),
        (3, 7),
        (2, 6),
    ]
    order = list(exchanges(range(1, 6), range(6, 11)))
    assert len(order) == 5**2 + 10**2 + 10**2 + 5**2 + 1
    assert order[25] == ((4, 5), (6, 7)), "the first exchange of two follows all 25 of one"


def test_a_floater_meets_the_highest_resident_it_has_not_met():
    # 3 floats from the one-point group; it has met 4, the top of the group below.
    scores = {1: 1, 2: 1, 3: 1, 4: 0, 5: 0, 6: 0}
    paired = pair(6, scores, played="34")
    assert paired.pairs == ((1, 2), (3, 5), (4, 6))


def test_a_group_floats_rather_than_strand_the_group_below_it():
    # 5 and 6 have met: if 3 and 4 met each other, 5 and 6 would be left with a rematch.
    scores = {1: 2, 2: 2, 3: 1, 4: 1, 5: 0, 6: 0}
    paired = pair(6, scores, played="56")
    assert paired.pairs == ((1, 2), (3, 5), (4, 6))


def test_the_lowest_floats_unless_the_group_below_cannot_take_it():
    # Group 1..5 floats one entrant to 6, who has met 5: so 4 floats, and 2 meets 5.
    scores = {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 0}
    paired = pair(6, scores, played="56")
    assert paired.pairs == ((1, 3), (2, 5), (4, 6))


def test_the_bye_goes_to_the_lowest_ranked_entrant_who_has_not_had_one():
    assert pair(5).bye == 5
    assert pair(5, had_bye={5}).bye == 4
    assert pair(5, had_bye={1, 2, 3, 4, 5}).bye == 5


def test_the_bye_moves_up_when_the_lowest_would_leave_a_forced_rematch():
    # Of 1..4 only 1 and 2 have not met: with 5 out, 3 and 4 would meet again.
    paired = pair(5, played="34 13 24 14 23")
    assert paired.bye == 4 and paired.rematches == 0
    assert paired.pairs == ((1, 2), (3, 5))


def test_when_every_pairing_has_a_rematch_the_round_has_the_fewest_then_the_closest_scores():
    scores = {1: 2, 2: 2, 3: 0, 4: 0}
    # Only 2 and 3 have not met: one rematch is forced, where 1-2 and 3-4 would make two.
    paired = pair(4, scores, played="12 34 13 24 14")
    assert paired.pairs == ((1, 4), (2, 3)) and paired.rematches == 1
    # Everyone has met: two rematches whatever happens, so equal scores meet.
    paired = pair(4, scores, played="12 34 13 24 14 23")
    assert paired.pairs == ((1, 2), (3, 4)) and paired.rematches == 2


def test_a_ranking_out_of_score_order_is_refused():
    with pytest.raises(ValueError, match="order of score"):
        pair([1, 2], {1: 0, 2: 1})
    with pytest.raises(ValueError, match="twice"):
        pair([1, 1], {1: 0})


# --- Monrad: 1 v 2, 3 v 4 --------------------------------------------------------------


def test_monrad_pairs_each_entrant_with_the_next_one_down_the_ranking():
    paired = pair(6, system=MONRAD)
    assert paired.pairs == ((1, 2), (3, 4), (5, 6))
    assert paired.bye is None and paired.rematches == 0


def test_monrad_skips_an_opponent_already_met_for_the_next_one():
    assert pair(4, played="12", system=MONRAD).pairs == ((1, 3), (2, 4))


def test_monrad_looks_ahead_so_the_bottom_of_the_field_is_not_left_with_a_rematch():
    # 1-2 would leave 3-4, who met already; the only rematch-free pairing is 1-3, 2-4.
    paired = pair(4, played="34", system=MONRAD)
    assert paired.pairs == ((1, 3), (2, 4)) and paired.rematches == 0


def test_monrad_allows_rematches_only_when_no_pairing_avoids_one():
    paired = pair(4, played="12 13 14 23 24 34", system=MONRAD)
    assert paired.pairs == ((1, 2), (3, 4)) and paired.rematches == 2


def test_monrad_gives_the_bye_as_dutch_does():
    paired = pair(5, played="34 13 24 14 23", system=MONRAD)
    assert paired.bye == 4 and paired.pairs == ((1, 2), (3, 5))


# --- Properties, against brute force ------------------------------------------------------


def all_pairings(field):
    if not field:
        yield []
        return
    top, rest = field[0], field[1:]
    for index, other in enumerate(rest):
        for pairs in all_pairings(rest[:index] + rest[index + 1 :]):
            yield [(top, other), *pairs]


def rematches(pairs, played):
    return sum(frozenset(p) in played for p in pairs)


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(min_value=0, max_value=9),
    edges=st.sets(st.tuples(st.integers(0, 8), st.integers(0, 8))),
)
def test_the_pairing_check_agrees_with_brute_force(size, edges):
    edges = {frozenset(edge) for edge in edges if len(set(edge)) == 2 and max(edge) < size}
    field = list(range(size))
    expected = size % 2 == 0 and any(
        all(frozenset(p) in edges for p in pairs) for pairs in all_pairings(field)
    )
    assert has_perfect_pairing(field, lambda a, b: frozenset((a, b)) in edges) == expected


def play_out(size, seed, system):
    """A tournament of ``size`` entrants over a round robin's worth of Swiss rounds, with
    random results; yields what each round was paired from and how."""
    rng = random.Random(seed)
    field = list(range(size))
    scores = dict.fromkeys(field, 0.0)
    played: set[frozenset] = set()
    byes: list[int] = []
    for _ in range(swiss_max_rounds(size)):
        ranking = ranked(scores)
        before = (ranking, dict(scores), set(played), set(byes))
        paired = swiss_round(
            ranking, scores=scores, played=played, had_bye=set(byes), system=system
        )
        yield before, paired
        for a, b in paired.pairs:
            played.add(frozenset((a, b)))
            outcome = rng.choice((a, b, None))
            for entrant in (a, b):
                scores[entrant] += 1.0 if outcome == entrant else 0.5 if outcome is None else 0
        if paired.bye is not None:
            byes.append(paired.bye)
            scores[paired.bye] += 1.0


def best_byes(ranking, had_bye):
    """Who may have the bye: nobody who had one while others have not."""
    if len(ranking) % 2 == 0:
        return [None]
    return [e for e in ranking if e not in had_bye] or list(ranking)


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(min_value=2, max_value=9),
    seed=st.integers(0, 10**6),
    system=st.sampled_from(PairingSystem),
)
def test_everyone_is_paired_once_or_has_the_bye_and_nobody_has_two_byes(size, seed, system):
    byes = []
    for (ranking, _, _, had_bye), paired in play_out(size, seed, system):
        seated = [entrant for pair in paired.pairs for entrant in pair]
        assert sorted(seated + [paired.bye] * (paired.bye is not None)) == sorted(ranking)
        assert paired.bye in best_byes(ranking, had_bye)
        byes.append(paired.bye)
    assert len(set(byes) - {None}) == len([b for b in byes if b is not None])


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(min_value=2, max_value=9),
    seed=st.integers(0, 10**6),
    system=st.sampled_from(PairingSystem),
)
def test_nobody_meets_twice_while_a_round_without_a_rematch_exists(size, seed, system):
    for (ranking, _, played, had_bye), paired in play_out(size, seed, system):
        avoidable = any(
            rematches(pairs, played) == 0
            for bye in best_byes(ranking, had_bye)
            for pairs in all_pairings([e for e in ranking if e != bye])
        )
        assert paired.rematches == 0 or not avoidable


@settings(max_examples=60, deadline=None)
@given(size=st.integers(min_value=2, max_value=9), seed=st.integers(0, 10**6))
def test_dutch_has_the_fewest_rematches_when_some_are_forced(size, seed):
    for (ranking, _, played, _), paired in play_out(size, seed, DUTCH):
        field = [e for e in ranking if e != paired.bye]
        fewest = min(rematches(pairs, played) for pairs in all_pairings(field))
        assert paired.rematches == fewest


@settings(max_examples=60, deadline=None)
@given(size=st.integers(min_value=2, max_value=9), seed=st.integers(0, 10**6))
def test_dutch_keeps_score_groups_together_as_far_as_they_can_be(size, seed):
    """The top group pairs within itself as often as any rematch-free pairing does, and if
    a pairing with equal scores in every pair exists, Dutch finds one."""
    for (ranking, scores, played, _), paired in play_out(size, seed, DUTCH):
        field = [e for e in ranking if e != paired.bye]
        legal = [p for p in all_pairings(field) if rematches(p, played) == 0]
        if not legal:
            continue
        top = scores[field[0]]

        def in_top_group(pairs, top=top, scores=scores):
            return sum(scores[a] == top == scores[b] for a, b in pairs)

        assert in_top_group(paired.pairs) == max(in_top_group(p) for p in legal)
        if any(all(scores[a] == scores[b] for a, b in p) for p in legal):
            assert all(scores[a] == scores[b] for a, b in paired.pairs)


def test_a_field_of_a_hundred_is_paired_without_rematches_over_seven_rounds():
    rounds = list(itertools.islice(play_out(100, 0, DUTCH), 7))
    assert all(paired.rematches == 0 for _, paired in rounds)


def test_the_swiss_module_imports_no_django_and_nothing_but_networkx_beyond_the_stdlib():
    path = Path(__file__).resolve().parents[2] / "tournaments" / "swiss.py"
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    assert {n for n in names if n.split(".")[0] not in sys.stdlib_module_names} == {"networkx"}


@st.composite
def histories(draw):
    """Any field of up to nine with any scores, meetings and byes: stranger than a real
    tournament, so every branch of the rules gets its turn."""
    size = draw(st.integers(min_value=2, max_value=9))
    scores = {e: draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0])) for e in range(size)}
    pairs = list(itertools.combinations(range(size), 2))
    played = {frozenset(p) for p in draw(st.sets(st.sampled_from(pairs)))}
    had_bye = draw(st.sets(st.sampled_from(range(size))))
    return ranked(scores), scores, played, had_bye


@settings(max_examples=300, deadline=None)
@given(history=histories(), system=st.sampled_from(PairingSystem))
def test_any_history_pairs_everyone_once_and_avoids_every_avoidable_rematch(history, system):
    ranking, scores, played, had_bye = history
    paired = swiss_round(ranking, scores=scores, played=played, had_bye=had_bye, system=system)
    seated = [entrant for pair in paired.pairs for entrant in pair]
    assert sorted(seated + [paired.bye] * (paired.bye is not None)) == sorted(ranking)
    assert paired.bye in best_byes(ranking, had_bye)
    field = [e for e in ranking if e != paired.bye]
    fewest = min(rematches(pairs, played) for pairs in all_pairings(field))
    avoidable = any(
        rematches(pairs, played) == 0
        for bye in best_byes(ranking, had_bye)
        for pairs in all_pairings([e for e in ranking if e != bye])
    )
    assert paired.rematches == 0 or not avoidable
    if system is DUTCH:
        assert paired.rematches == fewest


@settings(max_examples=300, deadline=None)
@given(history=histories())
def test_any_history_keeps_dutch_score_groups_together_as_far_as_they_can_be(history):
    ranking, scores, played, had_bye = history
    paired = swiss_round(ranking, scores=scores, played=played, had_bye=had_bye)
    field = [e for e in ranking if e != paired.bye]
    legal = [p for p in all_pairings(field) if rematches(p, played) == 0]
    if legal:
        top = scores[field[0]]
        in_top_group = [sum(scores[a] == top == scores[b] for a, b in p) for p in legal]
        assert sum(scores[a] == top == scores[b] for a, b in paired.pairs) == max(in_top_group)
        if any(all(scores[a] == scores[b] for a, b in p) for p in legal):
            assert all(scores[a] == scores[b] for a, b in paired.pairs)


def test_a_bracket_out_of_exchanges_takes_the_pairs_of_a_maximum_matching(monkeypatch):
    # With no exchange allowed, the example above cannot be paired by D5-D7: D9 pairs it.
    monkeypatch.setattr("tournaments.swiss.EXCHANGE_LIMIT", 1)
    scores = dict.fromkeys(range(1, 5), 1.0)
    paired = pair(4, scores, played="13 14")
    assert paired.rematches == 0 and paired.pairs == ((1, 2), (3, 4))
