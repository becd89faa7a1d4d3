"""What duplicate sets buy: how well ratings recover a known order of strength (in process).

N bots of known strength play in this process (no database, no subprocesses): bot ``i``
makes each decision with the game's heuristic strategy with probability ``i / (N - 1)``
and uniformly at random otherwise, so bot 0 is the random player, bot N-1 the heuristic,
and strength rises with ``i``. Two schemes spend the same budget of matches on the same
round-robin schedule of pairs:

- **single matches**: each match its own deal, the seats alternating;
- **duplicate sets**: two matches per deal with the seats swapped (``duplicate``), so luck
  of the cards cancels out within a set.

After each checkpoint of matches played, the bots are ranked by their openskill rating
(``ratings``) and the ranking is compared with the true order by Kendall's tau: 1 is the
true order, 0 no better than chance, -1 reversed. Runs repeat with other deals and the taus
are averaged.
"""

from __future__ import annotations

import itertools
import random
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from arena.builtin.strategies import load
from arena.referee import Limits, StrategyPlayer, referee_match
from games.rules import get_game
from tournaments.duplicate import SetMatch, SetOutcome, set_result
from tournaments.ratings.maths import PRIOR, Skill, skills_after_set

NO_HURRY = Limits(decision_seconds=60)


def kendall_tau(ranking: Sequence, truth: Sequence) -> float:
    """Kendall's tau between two orderings of the same items (no ties)."""
    if sorted(map(repr, ranking)) != sorted(map(repr, truth)) or len(truth) < 2:
        raise ValueError("kendall_tau compares two orderings of the same two or more items")
    position = {item: index for index, item in enumerate(ranking)}
    pairs = list(itertools.combinations(truth, 2))
    concordant = sum(1 for better, worse in pairs if position[better] < position[worse])
    return (2 * concordant - len(pairs)) / len(pairs)


def mixed_strategy(game_id: str, skill: float) -> Callable:
    """A strategy that plays the heuristic with probability ``skill``, at random otherwise."""
    heuristic, random_choice = load(f"{game_id}_heuristic"), load("random")

    def choose(observation: dict, rng: random.Random):
        strategy = heuristic if rng.random() < skill else random_choice
        return strategy(observation, rng)

    return choose


@dataclass(frozen=True)
class Checkpoint:
    matches: int
    tau_single: float
    tau_duplicate: float


def simulate(
    *,
    game_id: str,
    bots: int,
    matches: int,
    checkpoints: Sequence[int],
    runs: int,
    seed: int = 0,
    options: dict | None = None,
) -> list[Checkpoint]:
    """Mean Kendall tau of each scheme at each checkpoint (matches played), over ``runs``."""
    if bots < 2 or matches < 2 or runs < 1:
        raise ValueError("needs at least two bots, two matches and one run")
    marks = sorted({min(mark, matches) for mark in checkpoints} | {matches})
    strategies = [mixed_strategy(game_id, i / (bots - 1)) for i in range(bots)]
    truth = list(reversed(range(bots)))
    taus: dict[tuple[str, int], list[float]] = {}
    for run in range(runs):
        run_seed = seed * 1_000_003 + run
        for scheme, play in (("single", _single_matches), ("duplicate", _duplicate_sets)):
            for mark, skills in play(game_id, strategies, matches, marks, run_seed, options):
                ranking = sorted(range(bots), key=lambda bot: -skills.get(bot, PRIOR).mu)
                taus.setdefault((scheme, mark), []).append(kendall_tau(ranking, truth))
    return [
        Checkpoint(
            mark,
            statistics.fmean(taus[("single", mark)]),
            statistics.fmean(taus[("duplicate", mark)]),
        )
        for mark in marks
    ]


def _schedule(bots: int) -> Iterator[tuple[int, int]]:
    pairs = list(itertools.combinations(range(bots), 2))
    while True:
        yield from pairs


def _single_matches(game_id, strategies, matches, marks, run_seed, options):
    rng = random.Random(run_seed)
    skills: dict[int, Skill] = {}
    schedule = _schedule(len(strategies))
    for played in range(1, matches + 1):
        a, b = next(schedule)
        first_seat = played % 2
        match = _play(game_id, strategies, (a, b), first_seat, rng.getrandbits(48), options)
        outcome = SetOutcome.FIRST if match.winner == match.first_seat else SetOutcome.SECOND
        skills[a], skills[b] = skills_after_set(skills.get(a, PRIOR), skills.get(b, PRIOR), outcome)
        if played in marks:
            yield played, dict(skills)


def _duplicate_sets(game_id, strategies, matches, marks, run_seed, options):
    rng = random.Random(run_seed)
    skills: dict[int, Skill] = {}
    schedule = _schedule(len(strategies))
    played = 0
    while played < matches:
        a, b = next(schedule)
        deal = rng.getrandbits(48)
        result = set_result(
            _play(game_id, strategies, (a, b), first_seat, deal, options) for first_seat in (0, 1)
        )
        skills[a], skills[b] = skills_after_set(
            skills.get(a, PRIOR), skills.get(b, PRIOR), result.outcome
        )
        played += 2
        for mark in marks:
            if played - 2 < mark <= played:
                yield mark, dict(skills)


def _play(game_id, strategies, pair, first_seat, deal, options) -> SetMatch:
    game = get_game(game_id)
    first, second = (StrategyPlayer(strategies[bot], deal + bot) for bot in pair)
    players = [first, second] if first_seat == 0 else [second, first]
    result = referee_match(
        game, game.new_match(deal, options or {}), players, limits=NO_HURRY, emit=_ignore
    )
    return SetMatch(first_seat, result.winner, result.scores)


def _ignore(kind: str, payload: dict) -> None:
    pass
