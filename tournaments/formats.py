"""Tournament formats as pure functions: entrants in, pairings out (no Django, no I/O).

Round robin (single or double) and the length of a Swiss live here; Swiss pairings (the
Dutch and Monrad systems) in ``tournaments.swiss``, the elimination brackets in
``tournaments.brackets``. A format pairs entrants (any hashable values); what a pairing
plays (duplicate sets, ``tournaments.duplicate``) is the caller's business.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


#: The kind of the tournaments an organiser creates (every format but the three below).
ORGANISED = "organised"


class Format(enum.StrEnum):
    ROUND_ROBIN = "round_robin"
    DOUBLE_ROUND_ROBIN = "double_round_robin"
    SWISS = "swiss"
    SINGLE_ELIMINATION = "single_elimination"
    DOUBLE_ELIMINATION = "double_elimination"
    #: A game's ladder: sets between active ladder versions, paired by ``ladder.matchmaking``.
    LADDER = "ladder"
    #: An author's challenge: N duplicate sets between two versions, unrated.
    CHALLENGE = "challenge"
    #: A sequential test of one version against another (``tournaments.sprt``), unrated.
    VERSION_TEST = "version_test"

    @property
    def is_organised(self) -> bool:
        """A format an organiser creates; the others are made by the ladder and authors."""
        return self not in (Format.LADDER, Format.CHALLENGE, Format.VERSION_TEST)

    @property
    def kind(self) -> str:
        """What made it: ``organised`` for an organiser's formats, else the format's own name."""
        return ORGANISED if self.is_organised else self.value

    @property
    def is_rated(self) -> bool:
        """Its sets change the game's ratings; a challenge or a version test does not."""
        return self not in (Format.CHALLENGE, Format.VERSION_TEST)

    @property
    def is_elimination(self) -> bool:
        return self in (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION)

    @property
    def is_round_robin(self) -> bool:
        return self in (Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN)


#: The kinds of tournament: organised ones, and the ladder's, challenges' and version tests' runs.
KINDS = (ORGANISED, Format.LADDER.value, Format.CHALLENGE.value, Format.VERSION_TEST.value)


def round_robin_rounds(entrants: Sequence[T], *, cycles: int = 1) -> list[list[tuple[T, T]]]:
    """Every pair exactly ``cycles`` times, in rounds where nobody plays twice (circle method).

    With an odd field one entrant sits out each round. In the first cycle a pair is
    ``(a, b)`` with ``a`` the entrant listed earlier; each further cycle repeats the rounds
    with the pairs reversed, so seat assignment (first or second) alternates.
    """
    single = _circle_rounds(entrants)
    return [
        [pair if cycle % 2 == 0 else (pair[1], pair[0]) for pair in pairs]
        for cycle in range(cycles)
        for pairs in single
    ]


def _circle_rounds(entrants: Sequence[T]) -> list[list[tuple[T, T]]]:
    field: list[T | None] = list(entrants)
    if len(field) < 2:
        return []
    if len(field) % 2:
        field.append(None)
    order = {entrant: index for index, entrant in enumerate(entrants)}
    rounds = []
    for _ in range(len(field) - 1):
        half = len(field) // 2
        pairs = [(field[i], field[-1 - i]) for i in range(half)]
        rounds.append(
            [(a, b) if order[a] < order[b] else (b, a) for a, b in pairs if None not in (a, b)]
        )
        field = [field[0], field[-1], *field[1:-1]]
    return rounds


def swiss_round_count(entrants: int) -> int:
    """The default number of Swiss rounds: enough to single out a winner, ``ceil(log2 n)``."""
    return max(1, math.ceil(math.log2(max(entrants, 2))))


def swiss_max_rounds(entrants: int) -> int:
    """Rounds a field can play with no rematch and at most one bye each: a round robin's worth."""
    return entrants - 1 if entrants % 2 == 0 else entrants
