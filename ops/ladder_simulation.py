"""The ladder's matchmaker on simulated bots of known strength (pure, no database).

Bots have a true strength in set-Elo; a duplicate set between two of them is won by the
stronger with the logistic Elo probability, with ``draw_rate`` of sets drawn. Time passes
in ticks: each tick rates the sets that ended (openskill, as the real ladder does, in the
order they ended), then asks ``matchmake`` for new pairings up to the capacity (in sets,
``pairing_sizes``); a pairing's sets are played one after another, each lasting a random
time, and its two versions are busy until the last ends. Halfway through, a new version
stronger than all but ``newcomer_rank`` bots joins. The report gives what the ladder
promises: the final table's Kendall tau against the true order, the longest any version
waited between two sets, and how many sets the newcomer needed to reach its true place on
the table.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from dataclasses import dataclass, field

from ladder.matchmaking import LadderVersion, MatchmakingRules, matchmake, pairing_sizes
from ops.ranking_simulation import kendall_tau
from tournaments.duplicate import SetOutcome
from tournaments.ratings.maths import PRIOR, Skill, skills_after_set
from tournaments.sprt import expected_score


@dataclass(frozen=True)
class LadderScenario:
    bots: int = 12
    elo_step: float = 100.0
    draw_rate: float = 0.1
    #: Sets in flight, and the sets of a pairing: the ladder's defaults (``docs/ladder.md``).
    capacity: int = 6
    tick_seconds: float = 10.0
    set_seconds: tuple[float, float] = (20.0, 60.0)
    hours: float = 12.0
    newcomer_rank: int = 1
    recent_window_seconds: float = 6 * 3600.0
    rules: MatchmakingRules = MatchmakingRules(sets_per_pairing=3)

    @property
    def wait_bound_seconds(self) -> float:
        """The longest wait the ladder promises: starving, then a tick, then the longest a
        pairing's sets (played one after another) may last."""
        pairing_seconds = self.rules.sets_per_pairing * self.set_seconds[1]
        return self.rules.starving_seconds + self.tick_seconds + pairing_seconds


@dataclass(frozen=True)
class LadderReport:
    tau: float
    sets: int
    longest_wait_seconds: float
    newcomer_sets_to_place: int | None
    newcomer_final_rank: int
    newcomer_true_rank: int


@dataclass
class _Bot:
    strength: float
    joined: float
    skill: Skill = PRIOR
    sets: int = 0
    starts: list[float] = field(default_factory=list)


def ladder_simulate(scenario: LadderScenario, seed: int = 0) -> LadderReport:
    rng = random.Random(seed)
    bots = [_Bot(i * scenario.elo_step, 0.0) for i in range(scenario.bots)]
    newcomer_strength = (scenario.bots - scenario.newcomer_rank - 0.5) * scenario.elo_step
    newcomer_at = scenario.hours * 3600 / 2
    newcomer_id, placed_after = None, None
    flight: list[tuple[float, int, int]] = []  # (ends at, first, second)
    # The sets started within the recent window, oldest first (started at, first, second),
    # and their counts per version and per pair, kept as sets start and leave the window.
    recent: deque[tuple[float, int, int]] = deque()
    recent_sets: Counter[int] = Counter()
    recent_pairs: Counter[frozenset[int]] = Counter()
    now, end, total = 0.0, scenario.hours * 3600, 0
    while now < end:
        if newcomer_id is None and now >= newcomer_at:
            newcomer_id = len(bots)
            bots.append(_Bot(newcomer_strength, now))
        for _, first, second in sorted(f for f in flight if f[0] <= now):
            _rate(bots, first, second, scenario, rng)
            total += 1
        flight = [f for f in flight if f[0] > now]
        if newcomer_id is not None and placed_after is None and _placed(bots, newcomer_id):
            placed_after = bots[newcomer_id].sets
        while recent and recent[0][0] <= now - scenario.recent_window_seconds:
            _, first, second = recent.popleft()
            recent_sets.subtract((first, second))
            recent_pairs[frozenset((first, second))] -= 1
        busy = {index for _, first, second in flight for index in (first, second)}
        sizes = pairing_sizes(scenario.capacity - len(flight), scenario.rules)
        pairs = matchmake(
            [_view(i, bot, recent_sets[i], i in busy) for i, bot in enumerate(bots)],
            recent_pairs=recent_pairs,
            capacity=len(sizes),
            now=now,
            rules=scenario.rules,
        )
        for (first, second), size in zip(pairs, sizes, strict=False):
            for index in (first, second):
                bots[index].starts.append(now)
            ends = now
            for _ in range(size):
                ends += rng.uniform(*scenario.set_seconds)
                flight.append((ends, first, second))
                recent.append((now, first, second))
                recent_sets.update((first, second))
                recent_pairs[frozenset((first, second))] += 1
        now += scenario.tick_seconds
    ranking = sorted(range(len(bots)), key=lambda i: -bots[i].skill.conservative)
    truth = sorted(range(len(bots)), key=lambda i: -bots[i].strength)
    assert newcomer_id is not None
    return LadderReport(
        tau=kendall_tau(ranking, truth),
        sets=total,
        longest_wait_seconds=max(_longest_wait(bot, end) for bot in bots),
        newcomer_sets_to_place=placed_after,
        newcomer_final_rank=_rank(bots, newcomer_id),
        newcomer_true_rank=_true_rank(bots, newcomer_id),
    )


def _rate(bots: list[_Bot], first: int, second: int, scenario: LadderScenario, rng) -> None:
    a, b = bots[first], bots[second]
    score = expected_score(a.strength - b.strength)
    roll = rng.random()
    if roll < scenario.draw_rate:
        outcome = SetOutcome.DRAWN
    elif roll < scenario.draw_rate + (1 - scenario.draw_rate) * score:
        outcome = SetOutcome.FIRST
    else:
        outcome = SetOutcome.SECOND
    a.skill, b.skill = skills_after_set(a.skill, b.skill, outcome)
    for bot in (a, b):
        bot.sets += 1


def _view(index: int, bot: _Bot, recent_sets: int, busy: bool) -> LadderVersion:
    return LadderVersion(
        id=index,
        mu=bot.skill.mu,
        sigma=bot.skill.sigma,
        sets=bot.sets,
        recent_sets=recent_sets,
        waiting_since=bot.starts[-1] if bot.starts else bot.joined,
        busy=busy,
    )


def _placed(bots: list[_Bot], index: int) -> bool:
    return _rank(bots, index) == _true_rank(bots, index)


def _rank(bots: list[_Bot], index: int) -> int:
    return sorted(range(len(bots)), key=lambda i: -bots[i].skill.conservative).index(index)


def _true_rank(bots: list[_Bot], index: int) -> int:
    return sorted(range(len(bots)), key=lambda i: -bots[i].strength).index(index)


def _longest_wait(bot: _Bot, end: float) -> float:
    times = [bot.joined, *bot.starts, end]
    return max(later - earlier for earlier, later in zip(times, times[1:], strict=False))
