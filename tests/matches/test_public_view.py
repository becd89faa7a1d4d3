"""A spectator's view of a position (``Position.public``) and the state API that serves it."""

from __future__ import annotations

import random

import pytest
from rest_framework.test import APIClient

from games.replay import Position
from games.rules import GAMES, get_game
from matches.models import Match


def cards_in(value):
    """Every card string anywhere inside a JSON-like value."""
    if isinstance(value, str):
        return {value} if len(value) == 2 and value[0] in "23456789TJQKA" else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(item) for item in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(cards_in(item) for item in value))
    return set()


def positions(game_id, seed):
    game, rng = get_game(game_id), random.Random(seed)
    state, step = game.new_match(seed), 0
    while state.to_play is not None and step < 300:
        yield state, Position(step, state, [game.observation(state, seat) for seat in (0, 1)])
        state, step = game.apply(state, rng.choice(state.legal_actions())), step + 1


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_public_view_shows_no_card_either_seat_cannot_know(game_id):
    for seed in range(3):
        for state, position in positions(game_id, seed):
            # ``last_*`` fields tell how earlier deals ended: their cards were all shown then,
            # and may lie unseen in the current deal's stock now.
            current = {k: v for k, v in position.public.items() if not k.startswith("last_")}
            hidden = state.hidden_cards(0) | state.hidden_cards(1)
            assert not cards_in(current) & hidden, (game_id, seed, position.step)
            seen_by_both = cards_in(position.observations[0]) & cards_in(position.observations[1])
            assert cards_in(position.public) <= seen_by_both


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_public_view_counts_both_hands_but_shows_neither(game_id):
    state, position = next(positions(game_id, 1))
    public = position.public
    assert "hand" not in public
    assert public["hand_sizes"] == [len(obs["hand"]) for obs in position.observations]


def test_a_snag_spectator_sees_the_bar_and_the_trick():
    states = positions("snag", 5)
    for _ in range(2):
        state, position = next(states)
    public = position.public
    assert public["bar"] == position.observations[0]["bar"]
    [bar_card] = state.history[0]["action"].values()
    assert public["trick"] == [{"seat": 0, "card": bar_card}]


@pytest.mark.django_db
def test_the_state_api_serves_the_public_view_while_the_match_runs(builtin_snag_versions):
    from matches.play import match_play
    from matches.services import match_create, match_seats_create

    match = match_create(game_id="snag", seed=11, options={"target": 10})
    match_seats_create(match=match, versions=builtin_snag_versions)
    match_play(match_id=match.pk)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    body = APIClient().get(f"/api/matches/{match.pk}/state/?step=1").json()
    assert body["observations"] is None
    assert body["public"]["hand_sizes"] == [5, 5]
    assert body["public"]["trick"] == [{"seat": 0, "card": body["last_decision"]["action"]["bar"]}]
