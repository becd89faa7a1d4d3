"""How strong a built-in strategy is against another: seat-swapped duplicate sets in process.

Each set plays one seed twice with the seats swapped, so both strategies get the same cards;
the strategies run in this process through the referee (no subprocesses), which makes a few
hundred matches a matter of seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from games.events import ResultReason
from games.rules import get_game

from .builtin.strategies import load
from .referee import Limits, StrategyPlayer, referee_match

NO_HURRY = Limits(decision_seconds=60)


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

    def wilson_interval(self, z: float = 1.96) -> tuple[float, float]:
        """The 95% Wilson score interval of the win rate."""
        n, p = self.matches, self.win_rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return centre - half, centre + half


def head_to_head(
    game_id: str, strategy: str, opponent: str, *, sets: int, first_seed: int = 0
) -> HeadToHead:
    """``strategy`` against ``opponent`` over ``sets`` duplicate sets (2 matches each)."""
    game = get_game(game_id)
    chooser, opposer = load(strategy), load(opponent)
    wins = forfeits = 0
    for seed in range(first_seed, first_seed + sets):
        for seat in (0, 1):
            players = [StrategyPlayer(chooser, seed), StrategyPlayer(opposer, seed + 1)]
            if seat == 1:
                players.reverse()
            result = referee_match(
                game, game.new_match(seed), players, limits=NO_HURRY, emit=_ignore
            )
            wins += result.winner == seat
            forfeits += result.reason is ResultReason.FORFEIT
    return HeadToHead(game_id, strategy, opponent, 2 * sets, wins, forfeits)


def _ignore(kind: str, payload: dict) -> None:
    pass
