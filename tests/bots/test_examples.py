"""The starter bots in ``examples/``: each plays whole matches of its game without a forfeit,
and would pass the check an upload gets (the smoke matches, in the sandbox)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.referee import Limits, referee_match
from bots.runner import BuiltinLauncher, ScriptLauncher
from bots.uploads import smoke_test
from games.rules import GAMES, get_game

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_there_is_a_starter_bot_for_every_game():
    assert sorted(path.parent.name for path in EXAMPLES.glob("*/bot.py")) == sorted(GAMES)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_starter_bot_plays_whole_matches_in_both_seats(game_id):
    game = get_game(game_id)
    starter = ScriptLauncher(EXAMPLES / game_id / "bot.py")
    for seed, seat in ((1, 0), (2, 1)):
        players = [BuiltinLauncher("random", seed=seed)]
        players.insert(seat, starter)
        result = referee_match(
            game, game.new_match(seed), players, limits=Limits(), emit=lambda kind, p: None
        )
        assert result.forfeit is None, result.forfeit


@pytest.mark.sandbox
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_starter_bot_passes_the_upload_check(sandbox, game_id):
    launcher = sandbox.launcher(EXAMPLES / game_id, script="bot.py")
    problem, _ = smoke_test(get_game(game_id), lambda: launcher)
    assert problem == ""
