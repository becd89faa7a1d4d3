"""The sequential probability ratio test of "is version B better than version A?" (pure).

As in Stockfish's fishtest, where a game pair is the unit, here a duplicate set is: it
scores 1, 1/2 or 0 for the candidate. The test weighs two hypotheses about the candidate's
true set-score Elo against the baseline, H0: ``elo0`` and H1: ``elo1``, and after each set
compares the log-likelihood ratio with the bounds ``log(beta / (1 - alpha))`` (accept H0)
and ``log((1 - beta) / alpha)`` (accept H1). ``alpha`` bounds the chance of calling a
version better when it is ``elo0`` strong, ``beta`` that of missing one that is ``elo1``
strong; between the two hypotheses the test may take longer, and a cap on sets ends it
undecided.

The log-likelihood ratio is that of the generalised SPRT fishtest uses (M. Van den Bergh,
"A practical introduction to the GSPRT"): under each hypothesis, the win/draw/loss
probabilities most likely to give the observed counts among those whose expected score is
the hypothesis's are found (one variable, by bisection), and the LLR is the log of the
ratio of the two likelihoods. ``tests/ops/test_sprt_simulation.py`` checks the error rates
on sets simulated by ``ops.sprt_simulation``.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from games.confidence import Z_95, wilson_interval

from .bounds import Bound


def expected_score(elo: float) -> float:
    """The score a player ``elo`` points stronger expects (the logistic Elo curve)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


#: The widest set-Elo difference reported: a score interval reaching 0 or 1 has an infinite
#: end, shown as this bound (an expected score of 99%), meaning "this far or farther".
ELO_LIMIT = 800.0


def elo_of_score(score: float) -> float:
    """The set-Elo difference whose expected score is ``score``, within ±``ELO_LIMIT``."""
    if score <= 0.0:
        return -ELO_LIMIT
    if score >= 1.0:
        return ELO_LIMIT
    return min(max(-400.0 * math.log10(1.0 / score - 1.0), -ELO_LIMIT), ELO_LIMIT)


#: Each parameter's bounds, stated here alone: ``SprtParameters`` and the API's input read them.
SPRT_BOUNDS: dict[str, Bound] = {
    "elo0": Bound(-500, 500),
    "elo1": Bound(-500, 500),
    "alpha": Bound(0.001, 0.2),
    "beta": Bound(0.001, 0.2),
    "max_sets": Bound(2, 2000),
}


@dataclass(frozen=True)
class SprtParameters:
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_sets: int = 1000

    def __post_init__(self) -> None:
        for name, bound in SPRT_BOUNDS.items():
            if not bound.holds(getattr(self, name)):
                raise ValueError(f"{bound.describe(name)}, got {getattr(self, name)}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0} and {self.elo1}")

    @property
    def lower_bound(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper_bound(self) -> float:
        return math.log((1 - self.beta) / self.alpha)


class Verdict(enum.StrEnum):
    #: H1 accepted: the candidate is better (by about ``elo1``).
    BETTER = "better"
    #: H0 accepted: the candidate is not better than ``elo0``.
    NOT_BETTER = "not_better"
    #: The cap on sets was reached before either bound.
    INCONCLUSIVE = "inconclusive"
    #: Still running.
    PENDING = "pending"


@dataclass(frozen=True)
class SprtState:
    wins: int
    draws: int
    losses: int
    llr: float
    verdict: Verdict

    @property
    def sets(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """The candidate's mean set score, 0.5 before any set."""
        score = set_score(self.wins, self.draws, self.losses)
        return 0.5 if score is None else score


#: Set scores of a win, a draw and a loss.
_SCORES = (1.0, 0.5, 0.0)
#: Added to each count, as fishtest does, so the maximum likelihood always exists.
_PSEUDO_COUNT = 1e-3


def log_likelihood_ratio(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The generalised LLR of H1 against H0: the log of the ratio of the likelihoods of
    the counts under the most likely win/draw/loss probabilities whose expected score is
    that of ``elo1``, and of ``elo0``. Exactly 0 before any set: no evidence either way
    (the pseudo-counts would otherwise leave a tiny negative number)."""
    if wins + draws + losses == 0:
        return 0.0
    counts = [count + _PSEUDO_COUNT for count in (wins, draws, losses)]
    total = sum(counts)
    frequencies = [count / total for count in counts]
    p0 = _most_likely(frequencies, expected_score(elo0))
    p1 = _most_likely(frequencies, expected_score(elo1))
    return sum(n * math.log(b / a) for n, a, b in zip(counts, p0, p1, strict=True))


def _most_likely(frequencies: list[float], score: float) -> list[float]:
    """The probabilities closest in likelihood to ``frequencies`` whose mean score is
    ``score``: ``p_i = f_i / (1 + t (a_i - score))``, where ``t`` is the root of a function
    that falls across the interval keeping every ``p_i`` positive (Newton's steps, kept
    inside a shrinking bracket)."""
    gaps = [a - score for a in _SCORES]
    low, high = -1 / max(gaps), -1 / min(gaps)
    t = 0.0
    for _ in range(100):
        value = slope = 0.0
        for f, g in zip(frequencies, gaps, strict=True):
            term = g / (1 + t * g)
            value += f * term
            slope -= f * term * term
        if abs(value) < 1e-14:
            break
        if value > 0:
            low = t
        else:
            high = t
        step = t - value / slope
        t = step if low < step < high else (low + high) / 2
    return [f / (1 + t * g) for f, g in zip(frequencies, gaps, strict=True)]


def sprt_state(wins: int, draws: int, losses: int, parameters: SprtParameters) -> SprtState:
    llr = log_likelihood_ratio(wins, draws, losses, parameters.elo0, parameters.elo1)
    if llr >= parameters.upper_bound:
        verdict = Verdict.BETTER
    elif llr <= parameters.lower_bound:
        verdict = Verdict.NOT_BETTER
    elif wins + draws + losses >= parameters.max_sets:
        verdict = Verdict.INCONCLUSIVE
    else:
        verdict = Verdict.PENDING
    return SprtState(wins, draws, losses, llr, verdict)


def set_score(wins: int, draws: int, losses: int) -> float | None:
    """The mean set score (a set won 1, drawn 1/2, lost 0); None before any set."""
    sets = wins + draws + losses
    return (wins + draws / 2) / sets if sets else None


def score_interval(wins: int, draws: int, losses: int, z: float = Z_95) -> tuple[float, float]:
    """The 95% Wilson interval of the mean set score, (0, 1) before any set.

    The score (a draw counts one half) is read as a proportion of the sets played, which
    keeps its coverage at a score of 0 or 1 (5 sets won of 5 give [0.57, 1], not [1, 1]).
    """
    return wilson_interval(wins + draws / 2, wins + draws + losses, z)


def elo_interval(wins: int, draws: int, losses: int, z: float = Z_95) -> tuple[float, float]:
    """The score interval's ends as set-Elo differences, within ±``ELO_LIMIT``."""
    low, high = score_interval(wins, draws, losses, z)
    return elo_of_score(low), elo_of_score(high)
