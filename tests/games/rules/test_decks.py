"""Seeded shuffles (``docs/rulings.md``, "Determinism"): a pure function of ``(seed, k)``,
and uniform."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest

from games.rules.cards import FULL_DECK, make_deck
from games.rules.decks import check_stacked_decks, seeded_order

# Chi-square critical values at p = 0.001: a uniform shuffle fails each test once in a
# thousand seed ranges, and the ranges below are fixed, so the tests are deterministic.
CHI2_CRITICAL_23_DOF = 49.73
CHI2_CRITICAL_51_DOF = 87.97


def chi_square(counts: Counter, outcomes: int, samples: int) -> float:
    expected = samples / outcomes
    return sum((counts[outcome] - expected) ** 2 / expected for outcome in range(outcomes))


def test_a_shuffle_depends_on_the_seed_and_its_number_alone():
    assert seeded_order(FULL_DECK, 7, 0) == seeded_order(FULL_DECK, 7, 0)
    assert seeded_order(FULL_DECK, 7, 0) != seeded_order(FULL_DECK, 7, 1)
    assert seeded_order(FULL_DECK, 7, 0) != seeded_order(FULL_DECK, 8, 0)
    assert sorted(seeded_order(FULL_DECK, 7, 0)) == sorted(FULL_DECK)


def test_a_shuffle_gives_the_same_order_on_every_platform():
    # SHAKE-128 and big-endian doubles are fixed by their standards: these orders never change.
    assert seeded_order(FULL_DECK, 7, 0)[:8] == ("QD", "7S", "7H", "KD", "JC", "AD", "JH", "5S")
    exposure_deck = make_deck("9TJQKA")
    assert seeded_order(exposure_deck, 2**63 - 1, 4)[:6] == ("AD", "JH", "QH", "9C", "QC", "KC")


def test_every_order_of_a_small_deck_is_equally_likely():
    deck = ("AS", "KH", "QD", "JC")
    index_of = {order: index for index, order in enumerate(permutations(deck))}
    counts = Counter(
        index_of[seeded_order(deck, seed, k)] for seed in range(6000) for k in range(4)
    )
    assert chi_square(counts, len(index_of), 24_000) < CHI2_CRITICAL_23_DOF


def test_every_card_is_equally_likely_on_top_of_a_full_deck():
    position_of = {card: index for index, card in enumerate(FULL_DECK)}
    counts = Counter(position_of[seeded_order(FULL_DECK, seed, 3)[0]] for seed in range(26_000))
    assert chi_square(counts, len(FULL_DECK), 26_000) < CHI2_CRITICAL_51_DOF


def test_a_stacked_deck_must_be_a_permutation_of_the_deck():
    order = list(FULL_DECK)
    assert check_stacked_decks([order, order[::-1]], FULL_DECK) == (FULL_DECK, FULL_DECK[::-1])
    repeated = ["AS", *order[1:-1], "AS"]
    with pytest.raises(ValueError, match="repeats cards"):
        check_stacked_decks([repeated], FULL_DECK)
    with pytest.raises(ValueError, match="not in this game's deck"):
        check_stacked_decks([[["AS"], *order[1:]]], FULL_DECK)
    with pytest.raises(ValueError, match="has 51 cards"):
        check_stacked_decks([order[1:]], FULL_DECK)
