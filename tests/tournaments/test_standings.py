from __future__ import annotations

from tournaments.standings import MatchResult, standings


def result(seat0, seat1, winner, scores=(50, 10)):
    return MatchResult(entrants=(seat0, seat1), winner=winner, scores=scores)


def ranking(entrants, results):
    return [row.entrant for row in standings(entrants, results)]


def test_more_wins_rank_higher():
    results = [result("a", "b", 1), result("b", "a", 0), result("a", "c", 0)]
    rows = standings(["a", "b", "c"], results)
    assert [(r.entrant, r.wins, r.losses, r.played) for r in rows] == [
        ("b", 2, 0, 2),
        ("a", 1, 2, 3),
        ("c", 0, 1, 1),
    ]
    assert [r.rank for r in rows] == [1, 2, 3]


def test_head_to_head_separates_entrants_level_on_wins():
    # a, b and c have one win each; b has by far the best point difference, but among the
    # three only a and c beat a tied rival, so b ranks below both.
    results = [
        result("a", "b", 0, (50, 49)),
        result("b", "d", 0, (90, 0)),
        result("c", "a", 0, (50, 0)),
    ]
    rows = standings(["a", "b", "c", "d"], results)
    assert [r.entrant for r in rows] == ["c", "a", "b", "d"]
    assert [r.head_to_head for r in rows] == [1, 1, 0, 0]


def test_point_difference_breaks_a_tie_head_to_head_cannot():
    results = [result("a", "b", 0, (50, 40)), result("b", "a", 0, (50, 0))]
    assert ranking(["a", "b"], results) == ["b", "a"]


def test_points_scored_come_after_the_difference():
    results = [result("a", "b", 0, (60, 50)), result("b", "a", 0, (52, 42))]
    rows = standings(["a", "b"], results)
    assert [r.points_difference for r in rows] == [0, 0]
    assert [r.entrant for r in rows] == ["a", "b"]


def test_entry_order_is_the_last_tie_break():
    assert ranking(["late", "early"], []) == ["late", "early"]
    assert ranking(["early", "late"], []) == ["early", "late"]
