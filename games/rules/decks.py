"""Shuffles and stacked decks (RULINGS: "Determinism" and "Stacked decks").

Shuffle number ``k`` of a match is a pure function of ``(seed, k)``: it never depends on
earlier play, so seat-swapped duplicate matches get the same cards. A partial shuffle
(Rounds' later stages) takes the cards it needs in the order they appear in the full
order of shuffle ``k``, so stacked and random shuffles follow one rule.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence

Order = tuple[str, ...]

MAX_SEED = 2**63 - 1


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is an int in ``[0, 2**63)``, else raise ``ValueError``."""
    if type(seed) is not int or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
    return seed


def seeded_order(deck: Sequence[str], seed: int, k: int) -> Order:
    """The order shuffle ``k`` produces for ``deck`` in a match with ``seed``.

    Each card gets a 64-bit key from the SHAKE-128 stream of ``baize:{seed}:{k}`` (FIPS 202:
    the same bytes on every platform and Python), read big-endian in deck order, and the
    cards are sorted by key. Keys that are independent and uniform make every order equally
    likely whenever they are all distinct; two equal keys (then the sort keeps deck order)
    happen with probability below ``n * (n - 1) / 2 / 2**64``, under 1e-16 for 52 cards,
    which bounds the distance from a uniform shuffle.
    """
    stream = hashlib.shake_128(b"baize:%d:%d" % (seed, k)).digest(8 * len(deck))
    key_of = dict(zip(deck, struct.unpack(f">{len(deck)}Q", stream), strict=True))
    return tuple(sorted(deck, key=key_of.__getitem__))


def check_stacked_decks(value: object, deck: Sequence[str]) -> tuple[Order, ...]:
    """Validate the ``decks`` option: a list of permutations of ``deck``."""
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"option 'decks' must be a list of card orders, got {value!r}")
    expected = frozenset(deck)
    orders = []
    for index, order in enumerate(value):
        orders.append(_check_order(order, expected, index))
    return tuple(orders)


def _check_order(order: object, expected: frozenset[str], index: int) -> Order:
    where = f"option 'decks'[{index}]"
    if not isinstance(order, (list, tuple)):
        raise ValueError(f"{where} must be a list of cards, got {order!r}")
    unknown = [card for card in order if not isinstance(card, str) or card not in expected]
    if unknown:
        raise ValueError(f"{where} holds cards that are not in this game's deck: {unknown[:5]!r}")
    if len(set(order)) != len(order):
        repeated = sorted({card for card in order if order.count(card) > 1})
        raise ValueError(f"{where} repeats cards: {repeated!r}")
    if len(order) != len(expected):
        missing = sorted(expected.difference(order))
        raise ValueError(
            f"{where} has {len(order)} cards, the deck has {len(expected)}; missing {missing!r}"
        )
    return tuple(order)


def draw_order(deck: Sequence[str], seed: int, stacked: tuple[Order, ...], k: int) -> Order:
    """The full order of shuffle ``k``: the stacked one if given, else the seeded one."""
    if k < len(stacked):
        return stacked[k]
    return seeded_order(deck, seed, k)


def cards_in_order(order: Order, part: frozenset[str] | set[str]) -> list[str]:
    """The cards of ``part`` in the order they appear in ``order`` (a partial shuffle)."""
    return [card for card in order if card in part]
