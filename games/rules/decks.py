"""Shuffles and stacked decks (``docs/rulings.md``: "Determinism", "Stacked decks").

Shuffle number ``k`` of a match is a pure function of ``(seed, k)``: it never depends on
earlier play, so seat-swapped duplicate matches get the same cards. A partial shuffle
(Rounds' later stages) takes the cards it needs in the order they appear in the full
order of shuffle ``k``, so stacked and random shuffles follow one rule.
"""

from __future__ import annotations

import hashlib
import operator
import struct
from collections.abc import Sequence
from typing import TypeGuard

Order = tuple[str, ...]

MAX_SEED = 2**63 - 1

# The first and last bytes of the shuffle keys of up to 256 cards (see ``seeded_order``).
_POSITIVE_EXPONENT = b"\x3f" * 256
_INDICES = bytes(range(256))
#: The big-endian doubles of the keys of ``size`` cards, compiled once per size.
_KEY_LAYOUTS = {size: struct.Struct(f">{size}d") for size in range(257)}


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is an int in ``[0, 2**63)``, else raise ``ValueError``."""
    if type(seed) is not int or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
    return seed


def seeded_order(deck: Sequence[str], seed: int, k: int) -> Order:
    """The order shuffle ``k`` produces for ``deck`` (2 to 256 cards) in a match with ``seed``.

    The cards are sorted by random keys. Card ``i``'s key is 8 bytes of the SHAKE-128 stream
    of ``baize:{seed}:{k}`` (FIPS 202: the same bytes on every platform and Python), read
    from byte ``8 * i`` with the first byte set to 0x3F and the last to ``i``. Read as a
    big-endian double, such a key is positive and orders exactly as its bytes do, so the
    sort is by the 48 random bits in between, the index breaking ties (doubles, because
    Python sorts them and converts them from bytes faster than 64-bit integers); the last
    bytes of the sorted keys then name the cards in order. Independent uniform keys make
    every order equally likely whenever they all differ; two of them tie with probability
    below ``n * (n - 1) / 2 / 2**48`` (under 5e-12 for 52 cards), which bounds the
    distance from a uniform shuffle.
    """
    size = len(deck)
    keys = bytearray(hashlib.shake_128(b"baize:%d:%d" % (seed, k)).digest(8 * size))
    keys[0::8] = _POSITIVE_EXPONENT[:size]
    keys[7::8] = _INDICES[:size]
    layout = _KEY_LAYOUTS[size]
    in_order = layout.pack(*sorted(layout.unpack(keys)))
    order: Order = operator.itemgetter(*in_order[7::8])(deck)
    return order


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
    if _is_permutation(order, expected):
        return tuple(order)
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


def _is_permutation(order: object, expected: frozenset[str]) -> TypeGuard[Sequence[str]]:
    """As many items as the deck, and every card of the deck among them."""
    if not isinstance(order, (list, tuple)) or len(order) != len(expected):
        return False
    try:
        return set(order) == expected
    except TypeError:  # an unhashable item, which ``_check_order`` names
        return False


def draw_order(deck: Sequence[str], seed: int, stacked: tuple[Order, ...], k: int) -> Order:
    """The full order of shuffle ``k``: the stacked one if given, else the seeded one."""
    if k < len(stacked):
        return stacked[k]
    return seeded_order(deck, seed, k)


def cards_in_order(order: Order, part: frozenset[str] | set[str]) -> Order:
    """The cards of ``part`` in the order they appear in ``order`` (a partial shuffle)."""
    return tuple(filter(part.__contains__, order))
