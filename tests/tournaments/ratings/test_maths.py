from __future__ import annotations

import random

from tournaments.duplicate import SetOutcome
from tournaments.ratings.maths import PRIOR, RatedSet, Skill, skills_after_set, skills_replay


def test_a_new_bot_starts_at_the_prior_with_a_conservative_rating_of_zero():
    assert (PRIOR.mu, PRIOR.sigma) == (25.0, 25.0 / 3)
    assert abs(PRIOR.conservative) < 1e-12


def test_the_winner_of_a_set_gains_and_both_grow_more_certain():
    winner, loser = skills_after_set(PRIOR, PRIOR, SetOutcome.FIRST)
    assert winner.mu > PRIOR.mu > loser.mu
    assert winner.sigma < PRIOR.sigma and loser.sigma < PRIOR.sigma
    assert winner.conservative > loser.conservative


def test_a_drawn_set_between_equals_moves_neither_estimate():
    first, second = skills_after_set(PRIOR, PRIOR, SetOutcome.DRAWN)
    assert first.mu == second.mu == PRIOR.mu
    assert first.sigma < PRIOR.sigma


def test_the_second_entrant_winning_mirrors_the_first():
    a, b = skills_after_set(PRIOR, PRIOR, SetOutcome.SECOND)
    b2, a2 = skills_after_set(PRIOR, PRIOR, SetOutcome.FIRST)
    assert (a, b) == (a2, b2)


def test_replaying_the_same_sets_in_the_same_order_is_identical_bit_for_bit():
    rng = random.Random(3)
    sets = [RatedSet(*rng.sample(range(6), 2), rng.choice(list(SetOutcome))) for _ in range(300)]
    once, again = skills_replay(sets), skills_replay(list(sets))
    assert {k: (v.mu.hex(), v.sigma.hex()) for k, v in once.items()} == {
        k: (v.mu.hex(), v.sigma.hex()) for k, v in again.items()
    }


def test_replaying_in_steps_from_stored_skills_equals_one_replay():
    rng = random.Random(4)
    sets = [RatedSet(*rng.sample("abcde", 2), rng.choice(list(SetOutcome))) for _ in range(50)]
    halfway = skills_replay(sets[:20])
    stored = {k: Skill(float(repr(v.mu)), float(repr(v.sigma))) for k, v in halfway.items()}
    assert skills_replay(sets[20:], stored) == skills_replay(sets)


def test_a_stronger_bot_ends_above_a_weaker_one():
    sets = [RatedSet("strong", "weak", SetOutcome.FIRST)] * 8 + [
        RatedSet("weak", "strong", SetOutcome.FIRST)
    ] * 2
    skills = skills_replay(sets)
    assert skills["strong"].conservative > skills["weak"].conservative
