from __future__ import annotations

import pytest

from tournaments.duplicate import SetResult
from tournaments.formats import FORMATS, Format
from tournaments.standings import PairedSet, TieBreak, standings

ROUND_ROBIN = FORMATS[Format.ROUND_ROBIN].tie_breaks
SWISS = FORMATS[Format.SWISS].tie_breaks


def won(first, second, points=(100, 50)):
    return PairedSet(first, second, SetResult(2, 0, *points))


def drawn(first, second, points=(70, 70)):
    return PairedSet(first, second, SetResult(1, 1, *points))


def ranking(entrants, sets, tie_breaks=ROUND_ROBIN, **kwargs):
    return [row.entrant for row in standings(entrants, sets, tie_breaks=tie_breaks, **kwargs)]


def test_sets_won_and_drawn_make_the_score():
    rows = standings(["a", "b", "c"], [won("a", "b"), drawn("a", "c")], tie_breaks=ROUND_ROBIN)
    by = {row.entrant: row for row in rows}
    assert (by["a"].score, by["a"].wins, by["a"].draws, by["a"].played) == (1.5, 1, 1, 2)
    assert (by["b"].score, by["b"].losses) == (0.0, 1)
    assert by["c"].score == 0.5
    assert [row.rank for row in rows] == [1, 2, 3]
    assert [row.entrant for row in rows] == ["a", "c", "b"]


def test_the_tie_breaks_are_named_in_the_order_they_apply():
    assert ROUND_ROBIN == (
        TieBreak.HEAD_TO_HEAD,
        TieBreak.SONNEBORN_BERGER,
        TieBreak.POINTS_DIFFERENCE,
        TieBreak.POINTS_FOR,
    )
    assert SWISS[0] is TieBreak.BUCHHOLZ


def test_head_to_head_separates_entrants_level_on_score():
    # a and b both score 1; b has the far better point difference, but a beat b.
    sets = [won("a", "b", (51, 50)), won("b", "c", (300, 0))]
    assert ranking(["c", "b", "a"], sets) == ["a", "b", "c"]


def test_sonneborn_berger_comes_before_the_point_difference():
    # a and b score 1 and never met (head to head level at 0); a beat c, who drew with e,
    # b beat d, who scored nothing, by a far wider margin.
    sets = [won("a", "c", (51, 50)), won("b", "d", (300, 0)), drawn("c", "e")]
    rows = {row.entrant: row for row in standings(list("badce"), sets, tie_breaks=ROUND_ROBIN)}
    assert rows["a"].head_to_head == rows["b"].head_to_head == 0
    assert rows["a"].points_difference < rows["b"].points_difference
    assert ranking(list("badce"), sets)[:2] == ["a", "b"]


def test_the_point_difference_comes_next_when_sonneborn_berger_is_level():
    sets = [won("a", "c", (60, 50)), won("b", "d", (90, 10))]
    rows = {row.entrant: row for row in standings(list("abcd"), sets, tie_breaks=ROUND_ROBIN)}
    assert rows["a"].sonneborn_berger == rows["b"].sonneborn_berger == 0
    assert ranking(list("abcd"), sets)[:2] == ["b", "a"]


def test_sonneborn_berger_rewards_beating_the_stronger_opponent():
    # a and b both score 1 and never met; a beat c (who scored 1), b beat d (who scored 0).
    sets = [won("a", "c"), won("b", "d"), won("c", "e")]
    rows = {row.entrant: row for row in standings(list("badce"), sets, tie_breaks=ROUND_ROBIN)}
    assert rows["a"].sonneborn_berger == 1.0 and rows["b"].sonneborn_berger == 0.0
    assert ranking(list("badce"), sets)[:2] == ["a", "b"]


def test_points_for_breaks_a_tie_the_difference_cannot():
    sets = [won("a", "x", (60, 10)), won("b", "y", (90, 40))]
    assert ranking(list("abxy"), sets)[:2] == ["b", "a"]


def test_the_seed_order_is_the_last_tie_break():
    assert ranking(["late", "early"], []) == ["late", "early"]
    assert ranking(["early", "late"], []) == ["early", "late"]


def test_buchholz_ranks_first_in_swiss_and_a_bye_counts_as_a_win_without_an_opponent():
    # a and b score 1: a beat c (who then beat d), b had a bye and lost... b's opponents: d.
    sets = [won("a", "c"), won("c", "d"), won("d", "b")]
    rows = {row.entrant: row for row in standings(list("abcd"), sets, tie_breaks=SWISS, byes=["b"])}
    assert rows["b"].byes == 1 and rows["b"].score == 1.0
    assert rows["a"].buchholz == 1.0 and rows["b"].buchholz == 1.0
    assert rows["b"].played == 1, "a bye is not a set played"


def test_buchholz_orders_swiss_entrants_level_on_score():
    # a, b and c score 1. a met c (1) and b met d (0): a's field was stronger. c met a (1)
    # and e (0), level with a on Buchholz; Sonneborn-Berger then puts a (beat c) above c.
    sets = [won("a", "c"), won("c", "e"), won("b", "d")]
    rows = {row.entrant: row for row in standings(list("badce"), sets, tie_breaks=SWISS)}
    assert (rows["a"].buchholz, rows["c"].buchholz, rows["b"].buchholz) == (1.0, 1.0, 0.0)
    assert ranking(list("badce"), sets, tie_breaks=SWISS)[:3] == ["a", "c", "b"]


def test_the_place_in_a_bracket_comes_before_the_score():
    sets = [won("a", "b"), won("a", "c"), won("b", "d")]
    places = {"a": 2, "b": 3, "c": None, "d": 4}
    tie_breaks = FORMATS[Format.SINGLE_ELIMINATION].tie_breaks
    assert ranking(list("abcd"), sets, tie_breaks=tie_breaks, places=places) == list("cabd")


@pytest.mark.parametrize("sets_per_pair", [1, 2, 3])
def test_a_swiss_bye_is_worth_a_won_pairing(sets_per_pair):
    won = SetResult(2, 0, 30, 10)
    sets = [PairedSet("a", "b", won) for _ in range(sets_per_pair)]

    rows = {
        row.entrant: row
        for row in standings(
            ["a", "b", "c"],
            sets,
            tie_breaks=[TieBreak.BUCHHOLZ],
            byes=["c"],
            bye_points=sets_per_pair,
        )
    }

    assert rows["c"].score == rows["a"].score == sets_per_pair
    assert rows["c"].byes == 1 and rows["c"].played == 0
    # A bye adds nothing to Buchholz: there was no opponent.
    assert rows["c"].buchholz == 0
