"""The conformance suite every game passes: random playouts keep every invariant.

Each playout picks actions with a seeded random generator, so a failing example is
reproduced from hypothesis' seed alone.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import GAMES, get_game
from games.rules.decks import MAX_SEED

GAME_IDS = sorted(GAMES)
seeds = st.integers(min_value=0, max_value=MAX_SEED)
CARD_TOKEN = re.compile(r'"([2-9TJQKA][SHDC])"')
#: 600 whole random matches a game, 3,000 in all (a random Spades match at its default
#: options is 2,400 decisions long), with options drawn from every choice the game offers,
#: beside the 150 of each shorter property below.
PLAYOUTS = settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
FEWER_PLAYOUTS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def match_options(game_id: str) -> st.SearchStrategy[dict]:
    """A match's options, each drawn from its own schema: its default half the time, else
    any of its choices, or a number from its minimum up to its default (so shorter matches,
    and more of their ends, for the same time)."""
    fields = {}
    for option in get_game(game_id).options:
        if "enum" in option.schema:
            other = st.sampled_from(option.schema["enum"])
        else:
            other = st.integers(option.schema["minimum"], option.default)
        fields[option.name] = st.one_of(st.just(option.default), other)
    return st.fixed_dictionaries(fields)


def random_playout(
    game_id: str,
    seed: int,
    choice_seed: int,
    *,
    stop_after: int | None = None,
    options: dict | None = None,
):
    """Play random legal actions; return the states visited and the actions taken."""
    game = get_game(game_id)
    rng = random.Random(choice_seed)
    state = game.new_match(seed, options)
    states, actions = [state], []
    while state.to_play is not None and (stop_after is None or len(actions) < stop_after):
        action = rng.choice(state.legal_actions())
        state = game.apply(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


def replay(game_id: str, seed: int, orders, actions, options: dict | None = None):
    game = get_game(game_id)
    state = game.new_match(seed, {**(options or {}), "decks": [list(order) for order in orders]})
    for action in actions:
        state = game.apply(state, action)
    return state


def assert_cards_conserved(state, deck) -> None:
    zones = state.card_zones()
    cards = [card for zone in zones.values() for card in zone]
    assert sorted(cards) == sorted(deck), f"cards not conserved: {zones}"


def assert_view_hides(game, state, seat: int) -> None:
    # Summaries of finished deals (keys "last_...") name cards since shuffled back in.
    view = {k: v for k, v in game.observation(state, seat).items() if not k.startswith("last_")}
    shown = set(CARD_TOKEN.findall(json.dumps(view)))
    leaked = shown & state.hidden_cards(seat)
    assert not leaked, f"seat {seat} sees hidden cards {sorted(leaked)}"


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAME_IDS)
@PLAYOUTS
@given(seed=seeds, choice_seed=st.integers(0, 2**32), data=st.data())
def test_random_matches_keep_every_invariant(game_id, seed, choice_seed, data):
    game = get_game(game_id)
    options = data.draw(match_options(game_id), label="options")
    states, actions = random_playout(game_id, seed, choice_seed, options=options)
    for state in states[:-1]:
        assert state.to_play in (0, 1)
        assert state.legal_actions(), "a decision is pending but nothing is legal"
        assert state.winner is None
    for state in states[:: max(1, len(states) // 25)]:
        assert_cards_conserved(state, game.deck)
        assert_view_hides(game, state, 0)
        assert_view_hides(game, state, 1)
    final = states[-1]
    assert final.to_play is None and final.legal_actions() == []
    assert final.winner in (0, 1), "every match ends with a winner"
    assert len(final.scores) == 2 and all(type(score) is int for score in final.scores)


@pytest.mark.parametrize("game_id", GAME_IDS)
@FEWER_PLAYOUTS
@given(seed=seeds, choice_seed=st.integers(0, 2**32))
def test_the_same_seed_and_actions_give_the_same_observations(game_id, seed, choice_seed):
    game = get_game(game_id)
    first, actions = random_playout(game_id, seed, choice_seed, stop_after=400)
    again = game.new_match(seed)
    for state, action in zip(first, [*actions, None], strict=True):
        for seat in (0, 1):
            assert game.observation(again, seat) == game.observation(state, seat)
        if action is not None:
            again = game.apply(again, action)


@pytest.mark.parametrize("game_id", GAME_IDS)
@FEWER_PLAYOUTS
@given(seed=seeds, choice_seed=st.integers(0, 2**32), data=st.data())
def test_replaying_the_recorded_shuffles_and_actions_reproduces_the_match(
    game_id, seed, choice_seed, data
):
    game = get_game(game_id)
    options = data.draw(match_options(game_id), label="options")
    states, actions = random_playout(game_id, seed, choice_seed, options=options)
    final = states[-1]
    replayed = replay(game_id, seed, final.orders, actions, options)
    assert replayed.orders == final.orders
    assert (replayed.scores, replayed.winner) == (final.scores, final.winner)
    for seat in (0, 1):
        assert game.observation(replayed, seat) == game.observation(final, seat)


@pytest.mark.parametrize("game_id", GAME_IDS)
@FEWER_PLAYOUTS
@given(
    seed=seeds,
    choice_seed=st.integers(0, 2**32),
    step=st.integers(0, 300),
    seat=st.sampled_from([0, 1]),
    picks=st.randoms(use_true_random=False),
)
def test_swapping_cards_a_seat_cannot_see_leaves_its_view_unchanged(
    game_id, seed, choice_seed, step, seat, picks
):
    game = get_game(game_id)
    states, actions = random_playout(game_id, seed, choice_seed, stop_after=step)
    state = states[-1]
    hidden = sorted(state.hidden_cards(seat))
    if len(hidden) < 2:
        return
    a, b = picks.sample(hidden, 2)
    swapped_last = [b if card == a else a if card == b else card for card in state.orders[-1]]
    try:
        other_world = replay(game_id, seed, [*state.orders[:-1], swapped_last], actions)
    except ValueError:
        return  # the swap contradicts what was played (e.g. a failure to follow suit)
    assert game.observation(other_world, seat) == game.observation(state, seat)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_game_describes_its_options_with_defaults(game_id):
    description = get_game(game_id).describe()
    assert description["id"] == game_id
    assert description["options"], "every game has at least one option"
    for option in description["options"]:
        assert {"name", "default", "description"} <= set(option)


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"colour": "blue"}, "colour"),
        ({"decks": "AS"}, "decks"),
        ({"decks": [["AS", "AS"]]}, "decks"),
        ({"decks": [["XX"]]}, "decks"),
    ],
)
def test_bad_options_are_rejected_with_a_message_naming_them(game_id, options, named):
    with pytest.raises(ValueError, match=named):
        get_game(game_id).new_match(seed=1, options=options)


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("seed", [-1, 2**63, "7", 1.5, True])
def test_bad_seeds_are_rejected(game_id, seed):
    with pytest.raises(ValueError, match="seed"):
        get_game(game_id).new_match(seed=seed)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_changing_the_legal_actions_a_caller_got_changes_nothing_in_the_state(game_id):
    game = get_game(game_id)
    states, _ = random_playout(game_id, seed=3, choice_seed=3, stop_after=60)
    for state in states[:-1]:
        before = state.legal_actions()
        mangled = state.legal_actions()
        for action in mangled:
            for value in action.values():
                if isinstance(value, list):
                    value.append("AS")
            action.clear()
        mangled.clear()
        assert state.legal_actions() == before
        game.apply(state, before[0])
