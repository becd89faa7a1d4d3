"""``ladder.home``: duplicate sets between local bots, played and read as the server's."""

from __future__ import annotations

import pytest

from arena.referee import Limits, StrategyPlayer, referee_match
from games.rules import get_game
from ladder.home import SetsRecord, home_sets_play, home_version_test_play
from tournaments.duplicate import SetOutcome
from tournaments.sprt import SprtParameters, Verdict, score_interval

LIMITS = Limits(decision_seconds=60)


def first_legal(observation, rng):
    return observation["legal_actions"][0]


def last_legal(observation, rng):
    return observation["legal_actions"][-1]


def played_sets(players, sets, **kwargs):
    seen = []
    record = home_sets_play(
        game=get_game("exposure"),
        players=players,
        sets=sets,
        first_seed=kwargs.pop("first_seed", 40),
        options=kwargs.pop("options", {}),
        limits=LIMITS,
        series_length=kwargs.pop("series_length", 2),
        on_set=lambda home_set, record: seen.append((home_set, record)),
        **kwargs,
    )
    return record, seen


def test_set_k_plays_the_deal_of_seed_first_seed_plus_k_minus_one_from_both_seats():
    game = get_game("exposure")
    first, second = StrategyPlayer(first_legal), StrategyPlayer(last_legal)

    record, seen = played_sets((first, second), 3)

    assert [home_set.seed for home_set, _ in seen] == [40, 41, 42]
    for home_set, _ in seen:
        for seating in ([first, second], [second, first]):
            alone = referee_match(
                game, game.new_match(home_set.seed), seating, limits=LIMITS, emit=lambda *_: None
            )
            played = home_set.matches[0 if seating[0] is first else 1]
            assert (played.winner, played.scores) == (alone.winner, alone.scores)
    assert record.sets == 3 and seen[-1][1] == record


def test_a_set_is_read_from_the_first_bot_s_side_as_tournaments_read_it():
    record, seen = played_sets((StrategyPlayer(first_legal), StrategyPlayer(last_legal)), 3)

    for home_set, _ in seen:
        result = home_set.result
        first_won = sum(m.winner == seat for seat, m in enumerate(home_set.matches))
        first_points = sum(m.scores[seat] for seat, m in enumerate(home_set.matches))
        assert (result.first_wins, result.first_points) == (first_won, first_points)
    outcomes = [home_set.result.outcome for home_set, _ in seen]
    assert record == SetsRecord(
        outcomes.count(SetOutcome.FIRST),
        outcomes.count(SetOutcome.DRAWN),
        outcomes.count(SetOutcome.SECOND),
    )


def test_playing_stops_at_the_first_set_after_which_stop_says_so():
    players = (StrategyPlayer(first_legal), StrategyPlayer(last_legal))
    record, seen = played_sets(players, 10, stop=lambda record: record.sets == 3)

    assert record.sets == 3 and len(seen) == 3


def test_the_record_s_interval_is_a_challenge_s():
    assert SetsRecord(5, 0, 0).interval == score_interval(5, 0, 0)
    assert SetsRecord(3, 2, 1).score == pytest.approx(4 / 6)
    assert SetsRecord().score == 0.5 and SetsRecord().interval == (0.0, 1.0)


def test_a_bad_option_is_refused_before_any_set():
    with pytest.raises(ValueError, match="target"):
        players = (StrategyPlayer(first_legal), StrategyPlayer(last_legal))
        played_sets(players, 2, options={"target": 0})


def test_the_version_test_stops_when_the_sequential_test_decides():
    from arena.builtin.strategies import load

    state = home_version_test_play(
        game=get_game("snag"),
        candidate=StrategyPlayer(load("snag_heuristic"), 1),
        baseline=StrategyPlayer(load("random"), 2),
        parameters=SprtParameters(),
        first_seed=1,
        options={},
        limits=LIMITS,
        series_length=20,
    )

    assert state.verdict is Verdict.BETTER
    assert state.sets < 60
