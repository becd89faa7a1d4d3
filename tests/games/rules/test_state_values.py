"""States are values in fact: nothing a game hands out is shared with a state.

Two copies of one random match are played side by side. Everything the second copy hands
out (both seats' observations, legal actions, history, scores, card zones) is mangled in
place as soon as it is returned, and so is every action dict after ``apply`` took it. If any
of it were the state's own, the mangled copy would drift from the clean one; it must not,
at any step, in any game.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import GAMES, get_game
from games.rules.decks import MAX_SEED

#: A playout is cut here: past the end of the first deal (or stage) of every game, so that
#: the summaries of finished deals are handed out too, yet short enough to run in seconds.
MAX_DECISIONS = 250
PLAYOUTS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def mangle(value: Any) -> None:
    """Change every dict and list inside ``value`` in place, innermost first."""
    if type(value) is dict:
        for item in value.values():
            mangle(item)
        value.clear()
        value["mangled"] = ["mangled"]
    elif type(value) is list:
        for item in value:
            mangle(item)
        value.append("mangled")
        value.reverse()


def everything_handed_out(game, state) -> list[Any]:
    return [
        game.observation(state, 0),
        game.observation(state, 1),
        state.legal_actions(),
        list(state.history),
        state.scores,
        game.score_parts(state),
        state.card_zones(),
    ]


def snapshot(game, state) -> list[Any]:
    """All a caller can read of ``state``, compared as values (encoding it as JSON at each
    step took two thirds of this test's time)."""
    zones = {zone: list(cards) for zone, cards in state.card_zones().items()}
    return everything_handed_out(game, state)[:-1] + [zones, state.to_play, state.winner]


@pytest.mark.parametrize("game_id", sorted(GAMES))
@PLAYOUTS
@given(seed=st.integers(0, MAX_SEED), choice_seed=st.integers(0, 2**32))
def test_changing_anything_a_state_handed_out_changes_nothing_in_it(game_id, seed, choice_seed):
    game, rng = get_game(game_id), random.Random(choice_seed)
    clean, handled = game.new_match(seed), game.new_match(seed)
    for _ in range(MAX_DECISIONS):
        for returned in everything_handed_out(game, handled):
            mangle(returned)
        if clean.to_play is None:
            break
        index = rng.randrange(len(clean.legal_actions()))
        action = handled.legal_actions()[index]
        after = game.apply(handled, action)
        mangle(action)
        assert snapshot(game, handled) == snapshot(game, clean), "a state changed under us"
        clean, handled = game.apply(clean, clean.legal_actions()[index]), after
    assert snapshot(game, handled) == snapshot(game, clean)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_mangle_changes_every_nested_list_and_dict(game_id):
    """The check above is only as good as ``mangle``: a copy it mangles differs everywhere."""
    game = get_game(game_id)
    observation = game.observation(game.new_match(1), 0)
    before = json.dumps(observation, sort_keys=True)
    mangle(observation)
    assert json.dumps(observation, sort_keys=True) != before
    assert observation == {"mangled": ["mangled"]}


@pytest.mark.parametrize("game_id", sorted(GAMES))
@PLAYOUTS
@given(seed=st.integers(0, MAX_SEED), choice_seed=st.integers(0, 2**32))
def test_a_shared_observation_reads_as_the_callers_own_copy(game_id, seed, choice_seed):
    """Asked as the referee asks (each state before its child is made, so that the child
    starts from its parent's history), skipping some, then again out of order: the shared
    observation always holds what the copied one does."""
    game, rng = get_game(game_id), random.Random(choice_seed)

    def check(state) -> None:
        for seat in (0, 1):
            shared = game.observation(state, seat, shared=True)
            assert json.dumps(shared) == json.dumps(game.observation(state, seat))

    states = [game.new_match(seed)]
    while states[-1].to_play is not None and len(states) < MAX_DECISIONS:
        if rng.random() < 0.8:
            check(states[-1])
        states.append(game.apply(states[-1], rng.choice(states[-1].legal_actions())))
    for _ in range(len(states) // 4):
        check(rng.choice(states))
