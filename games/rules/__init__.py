"""Baize rules engines: pure Python, deterministic, no Django.

The facade every caller uses::

    from games.rules import get_game, IllegalAction
    game = get_game("snag")
    state = game.new_match(seed=7, options={"target": 50})
    state = game.apply(state, state.legal_actions()[0])
"""

from __future__ import annotations

from typing import Any

from .base import Action, Game, State
from .errors import GameOver, IllegalAction
from .exposure import Exposure
from .jam import Jam
from .rounds import Rounds
from .snag import Snag
from .spades import Spades

GAMES: dict[str, Game[Any]] = {
    game.id: game for game in (Snag(), Exposure(), Spades(), Rounds(), Jam())
}


def get_game(game_id: str) -> Game[Any]:
    """The game with this id; ``ValueError`` naming the known ids otherwise."""
    try:
        return GAMES[game_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {game_id!r}; known games are {sorted(GAMES)!r}") from None


__all__ = ["GAMES", "Action", "Game", "GameOver", "IllegalAction", "State", "get_game"]
