"""Ratings maths: openskill's Plackett-Luce model over duplicate-set results (pure; no Django).

One rating per bot version and game: a skill estimate ``mu`` with its uncertainty
``sigma``. A finished duplicate set is one rating update between its two entrants (a win,
a loss, or a draw, as ``duplicate.SetOutcome`` reads it). Ratings are shown as the
*conservative* rating ``mu - 3 sigma``: the skill the bot has with about 99.7% confidence,
so a bot with few sets does not top the table on luck.

Updates are floating-point and order-dependent, so the same sets applied in the same order
give the same ratings bit for bit; the caller keeps that order (``RatingUpdate.seq``).
openskill is chosen over TrueSkill for its open licence, its speed and its maintained
Plackett-Luce model; its default parameters (mu 25, sigma 25/3, tau 25/300) are kept.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

from openskill.models import PlackettLuce

from ..duplicate import SetOutcome

#: The model; its parameters are constants, it holds no state between calls.
MODEL = PlackettLuce()
#: How many standard deviations the conservative rating stays below the estimate.
CONSERVATIVE_SIGMAS = 3


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return self.mu - CONSERVATIVE_SIGMAS * self.sigma


PRIOR = Skill(MODEL.mu, MODEL.sigma)

_RANKS = {SetOutcome.FIRST: [0, 1], SetOutcome.SECOND: [1, 0], SetOutcome.DRAWN: [0, 0]}


def skills_after_set(first: Skill, second: Skill, outcome: SetOutcome) -> tuple[Skill, Skill]:
    """Both entrants' skills after one duplicate set between them."""
    teams = [
        [MODEL.rating(mu=first.mu, sigma=first.sigma)],
        [MODEL.rating(mu=second.mu, sigma=second.sigma)],
    ]
    [[new_first], [new_second]] = MODEL.rate(teams, ranks=_RANKS[outcome])
    return Skill(new_first.mu, new_first.sigma), Skill(new_second.mu, new_second.sigma)


@dataclass(frozen=True)
class RatedSet:
    first: Hashable
    second: Hashable
    outcome: SetOutcome


def skills_replay(
    sets: Iterable[RatedSet], start: Mapping[Hashable, Skill] | None = None
) -> dict[Hashable, Skill]:
    """The skills after applying ``sets`` in order, from ``start`` (everyone else: ``PRIOR``)."""
    skills = dict(start or {})
    for rated in sets:
        first = skills.get(rated.first, PRIOR)
        second = skills.get(rated.second, PRIOR)
        skills[rated.first], skills[rated.second] = skills_after_set(first, second, rated.outcome)
    return skills
