"""How strong a bot is against another: seat-swapped duplicate sets through the referee.

Each set plays one seed twice with the seats swapped, so both players get the same cards.
Built-in strategies run in this process (no subprocesses), which makes a few hundred
matches a matter of seconds; a bot file (an author's, say) runs as a process with real
time limits, as it would on the server.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.builtin.strategies import load
from arena.referee import Limits, Player, StrategyPlayer, referee_match
from games.confidence import Z_95, wilson_interval
from games.events import ResultReason
from games.rules import get_game

NO_HURRY = Limits(decision_seconds=60)
#: A fresh player for one match, from the match's seed.
PlayerFor = Callable[[int], Player]


@dataclass(frozen=True)
class HeadToHead:
    game_id: str
    strategy: str
    opponent: str
    matches: int
    wins: int
    forfeits: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches

    def wilson_interval(self, z: float = Z_95) -> tuple[float, float]:
        """The 95% Wilson score interval of the win rate."""
        return wilson_interval(self.wins, self.matches, z)


def head_to_head(
    game_id: str, strategy: str, opponent: str, *, sets: int, first_seed: int = 0
) -> HeadToHead:
    """``strategy`` against ``opponent`` over ``sets`` duplicate sets (2 matches each)."""
    chooser, opposer = load(strategy), load(opponent)
    return duel(
        game_id,
        (strategy, lambda seed: StrategyPlayer(chooser, seed)),
        (opponent, lambda seed: StrategyPlayer(opposer, seed)),
        sets=sets,
        first_seed=first_seed,
    )


def duel(
    game_id: str,
    contender: tuple[str, PlayerFor],
    opponent: tuple[str, PlayerFor],
    *,
    sets: int,
    first_seed: int = 0,
    limits: Limits = NO_HURRY,
    options: Mapping[str, Any] | None = None,
) -> HeadToHead:
    """The named ``contender`` against ``opponent`` over ``sets`` duplicate sets.

    Each is ``(name, player_for)``: ``player_for(seed)`` gives a fresh player for one match,
    a strategy in this process or a bot process (``arena.runner``) alike.
    """
    game = get_game(game_id)
    (name, contender_for), (opponent_name, opponent_for) = contender, opponent
    wins = forfeits = 0
    for seed in range(first_seed, first_seed + sets):
        for seat in (0, 1):
            players = [contender_for(seed), opponent_for(seed + 1)]
            if seat == 1:
                players.reverse()
            state = game.new_match(seed, options)
            result = referee_match(game, state, players, limits=limits, emit=_ignore)
            wins += result.winner == seat
            forfeits += result.reason is ResultReason.FORFEIT
    return HeadToHead(game_id, name, opponent_name, 2 * sets, wins, forfeits)


def _ignore(kind: str, payload: dict) -> None:
    pass
