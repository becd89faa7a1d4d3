"""Each format run as a tournament: pairings created round by round, results, the end."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from matches.models import Match
from matches.selectors import match_replay
from tournaments.duplicate import MAX_EXTRA_SETS
from tournaments.models import DuplicateSet, Pairing, Tournament
from tournaments.selectors import tournament_bracket, tournament_standings

from .conftest import decide_all, play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db


def pairs_met(tournament):
    return [
        frozenset(pair)
        for pair in tournament.pairings.filter(second__isnull=False).values_list(
            "first_id", "second_id"
        )
    ]


def by_seed(pairing):
    """The better seed wins its set 2-0."""
    return (
        (2, 0, (60, 10))
        if pairing.first.bracket_position < pairing.second.bracket_position
        else (0, 2, (10, 60))
    )


def test_an_eight_bot_swiss_plays_three_rounds_without_a_rematch(eight_bots):
    tournament = play_all(start(tournament_with(eight_bots, format="swiss")))
    assert tournament.status == Tournament.Status.FINISHED and tournament.rounds == 3
    rounds = Counter(tournament.pairings.values_list("round", flat=True))
    assert rounds == {1: 4, 2: 4, 3: 4}
    met = pairs_met(tournament)
    assert len(met) == len(set(met)) == 12
    table = tournament_standings(tournament=tournament)
    assert [row.rank for _, row in table.rows] == list(range(1, 9))
    assert sum(row.score for _, row in table.rows) == 12
    assert table.tie_breaks[0] == "buchholz"
    for match in Match.objects.filter(tournament_match__tournament=tournament):
        assert match.status == Match.Status.FINISHED and match_replay(match=match).ok


def test_an_odd_swiss_gives_each_bye_to_a_different_entrant():
    tournament = tournament_with(strategy_bots(5), format="swiss", rounds=4)
    tournament = decide_all(start(tournament), by_seed)
    assert tournament.status == Tournament.Status.FINISHED
    byes = list(tournament.pairings.filter(second__isnull=True).values_list("first_id", flat=True))
    assert len(byes) == 4 and len(set(byes)) == 4
    met = pairs_met(tournament)
    assert len(met) == len(set(met)) == 8, "four rounds of two pairings, no rematch"
    rows = {entrant.pk: row for entrant, row in tournament_standings(tournament=tournament).rows}
    assert all(rows[entrant].byes == 1 for entrant in byes)


def test_swiss_rounds_are_capped_at_what_the_field_can_play_without_rematches():
    tournament = start(tournament_with(strategy_bots(4), format="swiss", rounds=9))
    assert tournament.rounds == 3


def test_a_double_round_robin_meets_every_pair_twice():
    tournament = decide_all(
        start(tournament_with(strategy_bots(4), format="double_round_robin")), by_seed
    )
    assert tournament.status == Tournament.Status.FINISHED
    assert Counter(pairs_met(tournament)) == {
        frozenset(pair): 2
        for pair in itertools.combinations(tournament.entrants.values_list("pk", flat=True), 2)
    }


def test_a_five_bot_single_elimination_gives_the_top_three_seeds_a_bye():
    tournament = start(tournament_with(strategy_bots(5), format="single_elimination"))
    first_round = tournament.pairings.filter(round=1)
    assert [(p.first.bracket_position, p.second.bracket_position) for p in first_round] == [(4, 5)]
    tournament = decide_all(tournament, by_seed)
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.pairings.count() == 4, "n - 1 games, the byes are not played"
    table = tournament_standings(tournament=tournament)
    # Seeds 3 and 4 share third place; seed 4 won a set more (its first-round game).
    assert [(entrant.bracket_position, row.place) for entrant, row in table.rows] == [
        (1, 1),
        (2, 2),
        (4, 3),
        (3, 3),
        (5, 5),
    ]


def test_double_elimination_without_the_reset_when_the_top_seed_wins_everything():
    tournament = decide_all(
        start(tournament_with(strategy_bots(4), format="double_elimination")), by_seed
    )
    assert tournament.status == Tournament.Status.FINISHED
    keys = set(tournament.pairings.values_list("key", flat=True))
    assert "GF" in keys and "GF2" not in keys
    assert len(keys) == 2 * 4 - 2
    bracket = {pairing.key: pairing for pairing in tournament_bracket(tournament=tournament)}
    assert bracket["GF2"].status == "skipped"
    assert bracket["GF"].winner.bracket_position == 1


def test_double_elimination_resets_the_final_when_the_losers_bracket_champion_wins_it():
    def losers_side_wins_the_first_final(pairing):
        if pairing.key == "GF":
            return (0, 2, (0, 50))
        return by_seed(pairing)

    tournament = tournament_with(strategy_bots(4), format="double_elimination")
    tournament = decide_all(start(tournament), losers_side_wins_the_first_final)
    assert tournament.status == Tournament.Status.FINISHED
    final, reset = Pairing.objects.filter(tournament=tournament, key__in=["GF", "GF2"]).order_by(
        "key"
    )
    assert final.winner == final.second and reset.winner.bracket_position == 1
    assert tournament.pairings.count() == 2 * 4 - 1
    rows = tournament_standings(tournament=tournament).rows
    assert [row.place for _, row in rows][:2] == [1, 2]


def test_a_drawn_elimination_set_is_followed_by_another_set_then_the_better_seed():
    tournament = start(tournament_with(strategy_bots(2), format="single_elimination"))
    tournament = decide_all(tournament, lambda pairing: (1, 1, (40, 40)))
    assert tournament.status == Tournament.Status.FINISHED
    final = tournament.pairings.get()
    assert final.sets.count() == 1 + MAX_EXTRA_SETS
    assert final.winner.bracket_position == 1
    seeds = list(DuplicateSet.objects.filter(pairing=final).values_list("seed", flat=True))
    assert len(set(seeds)) == len(seeds), "every extra set is a fresh deal"


def test_an_extra_set_that_breaks_the_tie_sends_its_winner_through():
    results = iter([(1, 1, (40, 40)), (0, 2, (0, 50))])
    tournament = start(tournament_with(strategy_bots(2), format="single_elimination"))
    tournament = decide_all(tournament, lambda pairing: next(results))
    final = tournament.pairings.get()
    assert final.sets.count() == 2 and final.winner.bracket_position == 2


def test_an_eight_bot_double_elimination_played_for_real_reaches_a_champion(eight_bots):
    tournament = play_all(start(tournament_with(eight_bots, format="double_elimination")))
    assert tournament.status == Tournament.Status.FINISHED
    bracket = tournament_bracket(tournament=tournament)
    assert len(bracket) == 15 and bracket[-1].key == "GF2"
    places = [row.place for _, row in tournament_standings(tournament=tournament).rows]
    assert places[:3] == [1, 2, 3] and None not in places
