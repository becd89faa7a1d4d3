"""The starter bots in ``examples/``: each plays whole matches of its game without a forfeit,
and would pass the check an upload gets (the smoke matches, in the sandbox). The Monte Carlo
bot, which bundles the engine, also beats the built-in heuristic."""

from __future__ import annotations

import dataclasses
import importlib.util
import random
from pathlib import Path

import pytest
from django.conf import settings

from arena.bot_code import UploadLimits, read_upload, store_code
from arena.builtin.strategies import load
from arena.referee import Limits, StrategyPlayer, referee_match
from arena.runner import BuiltinLauncher, ScriptLauncher
from arena.sandbox.launcher import SandboxLimits
from bots.services.bots import builtin_strategy_names
from bots.services.check import check_plan, smoke_test
from bots.services.launch import referee_limits
from games.rules import GAMES, get_game
from ops.strength import duel

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples"
ENGINE = ROOT / "games" / "rules"


def test_there_is_a_starter_bot_for_every_game_and_the_montecarlo_bot():
    names = sorted(path.parent.name for path in EXAMPLES.glob("*/bot.py"))
    assert names == sorted([*GAMES, "montecarlo"])


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
    check = smoke_test(get_game(game_id), lambda: launcher)
    assert check.problem == "" and check.plays_series, check.log


# The Monte Carlo bot (examples/montecarlo): bot.py and a copy of the engine in one upload.

MONTECARLO = EXAMPLES / "montecarlo"


def _montecarlo_module():
    spec = importlib.util.spec_from_file_location("montecarlo_bot", MONTECARLO / "bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def montecarlo_build(tmp_path_factory) -> Path:
    """The folder ``examples/montecarlo/build.py`` makes (its zip lies beside it)."""
    spec = importlib.util.spec_from_file_location("montecarlo_build", MONTECARLO / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return build.build(tmp_path_factory.mktemp("build"))


def test_the_montecarlo_zip_holds_bot_py_and_the_engine_and_passes_the_upload_checks(
    montecarlo_build,
):
    zipped = montecarlo_build.with_suffix(".zip")
    code = read_upload(zipped.name, zipped.read_bytes(), UploadLimits())
    assert "bot.py" in code.files and "games/rules/snag/rules.py" in code.files
    assert not [path for path in code.files if "__pycache__" in path]
    bundled = {path.removeprefix("games/rules/") for path in code.files if "rules/" in path}
    assert bundled == {str(p.relative_to(ENGINE)) for p in ENGINE.rglob("*.py")}


def test_a_determinisation_replays_the_deal_so_far_with_the_seat_s_own_view():
    bot, game, rng = _montecarlo_module(), get_game("snag"), random.Random(5)
    for seed in range(40):
        state = game.new_match(seed, {"target": 30})
        for _ in range(rng.randrange(60)):
            state = game.apply(state, rng.choice(state.legal_actions()))
        observation = game.observation(state, state.to_play)
        sample = bot.determinise(observation, rng)
        assert sample is not None, f"seed {seed}: the sample did not replay"
        seen = game.observation(sample, bot.simulated_seat(observation))
        for key in ("phase", "hand", "bar", "untaken", "legal_actions", "tricks_played"):
            assert seen[key] == observation[key], (seed, key)


def test_the_montecarlo_bot_plays_a_whole_match_against_the_heuristic_without_forfeiting(
    montecarlo_build,
):
    game = get_game("snag")
    players = [ScriptLauncher(montecarlo_build / "bot.py"), BuiltinLauncher("snag_heuristic")]
    # The server's time limits; a target of 10 keeps the match to a deal or two.
    state = game.new_match(3, {"target": 10})
    result = referee_match(game, state, players, limits=referee_limits(), emit=lambda k, p: None)
    assert result.forfeit is None, result.forfeit
    assert max(result.scores) >= 10


@pytest.mark.slow
def test_the_montecarlo_bot_wins_more_matches_than_it_loses_against_the_heuristic(
    montecarlo_build,
):
    launcher = ScriptLauncher(montecarlo_build / "bot.py")
    heuristic = load("snag_heuristic")
    # A tenth of the server's decision limit (it thinks for 30% of it) keeps this quick; it
    # still wins about 85% of its matches (at the full limit: docs/bot-author-guide.md).
    outcome = duel(
        "snag",
        ("montecarlo", lambda seed: launcher),
        ("heuristic", lambda seed: StrategyPlayer(heuristic, seed)),
        sets=5,
        limits=Limits(decision_seconds=0.1, time_bank_seconds=5),
    )
    assert outcome.forfeits == 0
    assert outcome.wins > outcome.matches - outcome.wins, outcome


@pytest.mark.sandbox
def test_the_uploaded_montecarlo_zip_passes_the_upload_check_in_the_sandbox(
    sandbox, montecarlo_build, tmp_path
):
    zipped = montecarlo_build.with_suffix(".zip")
    code = read_upload(zipped.name, zipped.read_bytes(), UploadLimits())
    stored = store_code(code, tmp_path / "store")
    game = get_game("snag")
    plan = check_plan(game.id, opponents=sorted(builtin_strategy_names(game.id).values()))
    # As the server's check launches it: a process may play every match of its seating, so
    # its CPU backstop is the per-match one times their number.
    cpu = settings.BAIZE_SANDBOX_LIMITS["cpu_seconds"] * len(plan.seeds)
    limits = SandboxLimits(cpu_seconds=cpu)
    # The bot thinks for a share of the decision limit it is sent: at a tenth of the server's,
    # the check's full-length sets take seconds instead of minutes, and it is the same check.
    quick = dataclasses.replace(referee_limits(), decision_seconds=0.1)
    check = smoke_test(game, lambda: sandbox.launcher(stored, limits=limits), quick, plan=plan)
    assert check.problem == "" and check.plays_series, check.log
