"""Built-in bots: the protocol loop of ``main.py`` and the strategies it runs."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.builtin.strategies import load
from arena.protocol import decide_message, decode_reply, encode, end_message, start_message
from arena.referee import Limits, StrategyPlayer, referee_match
from arena.runner import BotExited, BotProcess, BuiltinLauncher, LaunchSpec
from games.events import ResultReason
from games.rules import GAMES, get_game

SNAG = get_game("snag")
NO_HURRY = Limits(decision_seconds=30)


def play_in_process(game_id: str, seats: list[str], seed: int, options: dict | None = None):
    game = get_game(game_id)
    players = [StrategyPlayer(load(name), seed * 2 + seat) for seat, name in enumerate(seats)]
    state = game.new_match(seed, options or {})
    return referee_match(game, state, players, limits=NO_HURRY, emit=lambda *event: None)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_random_strategy_plays_whole_matches_of_every_game(game_id):
    for seed in range(3):
        result = play_in_process(game_id, ["random", "random"], seed)
        assert result.reason is ResultReason.PLAYED, result.forfeit


def test_the_snag_heuristic_only_ever_plays_legal_actions():
    for seed in range(20):
        result = play_in_process("snag", ["snag_heuristic", "random"], seed)
        assert result.reason is ResultReason.PLAYED, result.forfeit


def test_the_snag_heuristic_beats_random_in_most_seat_swapped_matches():
    wins = 0
    for seed in range(20):
        wins += play_in_process("snag", ["snag_heuristic", "random"], seed).winner == 0
        wins += play_in_process("snag", ["random", "snag_heuristic"], seed).winner == 1
    assert wins >= 30  # of 40; measured over 300 matches: 94%


def snag_observation(**fields: Any) -> dict[str, Any]:
    """A seat-0 Snag observation with the fields the heuristic reads; ``fields`` override."""
    observation = {
        "seat": 0,
        "hand": [],
        "opponent_hand_size": 3,
        "bar": [],
        "trick": [],
        "untaken": [],
        "taken": [[], []],
    }
    observation.update(fields)
    return observation


def test_the_snag_heuristic_takes_a_card_of_its_longest_suit_first():
    observation = snag_observation(
        phase="take_first",
        taken=[["2S", "5S", "3H"], ["4D"]],
        untaken=["AH", "9S", "KD"],
        legal_actions=[{"take": "AH"}, {"take": "9S"}, {"take": "KD"}],
    )
    assert load("snag_heuristic")(observation, random.Random(0)) == {"take": "9S"}


def test_the_snag_heuristic_wins_a_trick_with_its_cheapest_winning_card():
    observation = snag_observation(
        phase="lead",
        hand=["AC", "TC", "2H"],
        trick=[{"seat": 0, "card": "5C"}, {"seat": 1, "card": "9C"}],
        legal_actions=[{"play": "AC"}, {"play": "TC"}],
    )
    assert load("snag_heuristic")(observation, random.Random(0)) == {"play": "TC"}


def test_the_snag_heuristic_throws_its_lowest_card_into_a_trick_it_cannot_win():
    observation = snag_observation(
        phase="lead",
        hand=["TC", "3C"],
        trick=[{"seat": 0, "card": "5C"}, {"seat": 1, "card": "AC"}],
        legal_actions=[{"play": "TC"}, {"play": "3C"}],
    )
    assert load("snag_heuristic")(observation, random.Random(0)) == {"play": "3C"}


def test_main_py_plays_a_series_and_exits_when_its_input_ends():
    state = SNAG.new_match(4)
    observation = SNAG.observation(state, 0)
    with BotProcess(BuiltinLauncher("random", seed=1).launch_spec()) as bot:
        for match in (1, 2):
            start = start_message("snag", 0, {"target": 50}, 1.0, series=(match, 2))
            bot.send(encode(start), timeout=5)
            assert decode_reply(bot.receive(timeout=10)) == {"type": "ready", "series": True}
            reply, _ = bot.request(encode(decide_message(1, observation, 1.0)), timeout=5)
            assert decode_reply(reply)["action"] in observation["legal_actions"]
            bot.send(encode(end_message(0, [50, 0], "played")), timeout=5)
        bot.close_input()
        with pytest.raises(BotExited, match="exit status 0"):
            bot.receive(timeout=5)


def test_main_py_with_an_unknown_strategy_exits_with_the_reason_on_stderr():
    spec = BuiltinLauncher("random").launch_spec()
    spec = LaunchSpec((*spec.argv[:-1], "no_such_strategy"), spec.cwd)
    with BotProcess(spec) as bot:
        with pytest.raises(BotExited, match="exit status 1"):
            bot.receive(timeout=10)
        assert "No module named 'strategies.no_such_strategy'" in bot.stderr_tail()
