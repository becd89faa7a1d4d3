"""Tournament formats as pure functions: entrants in, pairings out (no Django, no I/O).

Round robin (single or double) and Swiss live here, the elimination brackets in
``tournaments.brackets``. A format pairs entrants (any hashable values); what a pairing
plays (duplicate sets, ``tournaments.duplicate``) is the caller's business.

Swiss pairing rules (Baize's, documented in ``swiss_round``):
- the field is ranked by score, then rating (the caller passes that ranking);
- from the top, each entrant meets the highest-ranked free entrant it has not met yet,
  provided the rest of the field can still be paired without a rematch; only when no
  rematch-free pairing of the whole field exists at all are rematches allowed;
- an odd field gives one entrant a bye: the lowest-ranked entrant that has not had one and
  whose bye leaves a rematch-free pairing of the others. Nobody has a second bye while an
  entrant without one remains.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


class Format(enum.StrEnum):
    ROUND_ROBIN = "round_robin"
    DOUBLE_ROUND_ROBIN = "double_round_robin"
    SWISS = "swiss"
    SINGLE_ELIMINATION = "single_elimination"
    DOUBLE_ELIMINATION = "double_elimination"

    @property
    def is_elimination(self) -> bool:
        return self in (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION)

    @property
    def is_round_robin(self) -> bool:
        return self in (Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN)


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


@dataclass(frozen=True)
class SwissRound(Generic[T]):
    """One Swiss round: pairs with the higher-ranked entrant first, and who has the bye."""

    pairs: list[tuple[T, T]]
    bye: T | None
    rematches: int


def swiss_round(
    ranking: Sequence[T], *, played: Collection[frozenset[T]], had_bye: Collection[T]
) -> SwissRound[T]:
    """Pair the next Swiss round of ``ranking`` (best first: by score, then rating).

    ``played`` holds the pairs that have met (``frozenset({a, b})``), ``had_bye`` the
    entrants that have had a bye. The rules are in the module docstring.
    """
    if len(set(ranking)) != len(ranking):
        raise ValueError("an entrant appears twice in the ranking")

    def never_met(a: T, b: T) -> bool:
        return frozenset((a, b)) not in played

    for allowed in (never_met, _any_pair):
        for bye in _bye_candidates(ranking, had_bye):
            field = [entrant for entrant in ranking if entrant != bye]
            pairs = _pair_from_the_top(field, allowed)
            if pairs is not None:
                rematches = sum(frozenset(pair) in played for pair in pairs)
                return SwissRound(pairs, bye, rematches)
    raise AssertionError("a field with every pair allowed always pairs")


def _any_pair(a: object, b: object) -> bool:
    return True


def _bye_candidates(ranking: Sequence[T], had_bye: Collection[T]) -> list[T | None]:
    if len(ranking) % 2 == 0:
        return [None]
    from_the_bottom = list(reversed(ranking))
    fresh = [entrant for entrant in from_the_bottom if entrant not in had_bye]
    return fresh or from_the_bottom


def _pair_from_the_top(
    field: Sequence[T], allowed: Callable[[T, T], bool]
) -> list[tuple[T, T]] | None:
    """Greedy pairing that stays completable: None if no perfect pairing of ``field`` exists."""
    if not _has_perfect_pairing(field, allowed):
        return None
    pairs = []
    free = list(field)
    while free:
        top = free[0]
        for opponent in free[1:]:
            rest = [entrant for entrant in free[1:] if entrant != opponent]
            if allowed(top, opponent) and _has_perfect_pairing(rest, allowed):
                pairs.append((top, opponent))
                free = rest
                break
    return pairs


def _has_perfect_pairing(field: Sequence[T], allowed: Callable[[T, T], bool]) -> bool:
    n = len(field)
    neighbours = [[j for j in range(n) if j != i and allowed(field[i], field[j])] for i in range(n)]
    return n % 2 == 0 and maximum_matching_size(neighbours) * 2 == n


def maximum_matching_size(neighbours: Sequence[Sequence[int]]) -> int:
    """Size of a maximum matching of a general graph (Edmonds' blossom algorithm, O(V^3)).

    ``neighbours[v]`` lists the vertices joined to ``v`` (0 .. n-1, symmetric).
    """
    return _Blossom(neighbours).matching_size()


class _Blossom:
    """Augmenting paths with blossom contraction; the textbook array formulation."""

    def __init__(self, neighbours: Sequence[Sequence[int]]) -> None:
        self.neighbours = neighbours
        self.n = len(neighbours)
        self.mate = [-1] * self.n

    def matching_size(self) -> int:
        for root in range(self.n):
            if self.mate[root] == -1:
                end = self._augmenting_path_end(root)
                if end != -1:
                    self._augment(end)
        return sum(1 for v in range(self.n) if self.mate[v] != -1) // 2

    def _augment(self, v: int) -> None:
        while v != -1:
            parent = self.parent[v]
            next_v = self.mate[parent]
            self.mate[v], self.mate[parent] = parent, v
            v = next_v

    def _augmenting_path_end(self, root: int) -> int:
        n = self.n
        self.used = [False] * n
        self.parent = [-1] * n
        self.base = list(range(n))
        self.used[root] = True
        queue = [root]
        while queue:
            v = queue.pop(0)
            for u in self.neighbours[v]:
                if self.base[v] == self.base[u] or self.mate[v] == u:
                    continue
                if u == root or (self.mate[u] != -1 and self.parent[self.mate[u]] != -1):
                    queue.extend(self._contract(v, u))
                elif self.parent[u] == -1:
                    self.parent[u] = v
                    if self.mate[u] == -1:
                        return u
                    self.used[self.mate[u]] = True
                    queue.append(self.mate[u])
        return -1

    def _contract(self, v: int, u: int) -> list[int]:
        common = self._lowest_common_base(v, u)
        in_blossom = [False] * self.n
        self._mark_path(v, common, u, in_blossom)
        self._mark_path(u, common, v, in_blossom)
        newly_used = []
        for i in range(self.n):
            if in_blossom[self.base[i]]:
                self.base[i] = common
                if not self.used[i]:
                    self.used[i] = True
                    newly_used.append(i)
        return newly_used

    def _lowest_common_base(self, a: int, b: int) -> int:
        seen = [False] * self.n
        while True:
            a = self.base[a]
            seen[a] = True
            if self.mate[a] == -1:
                break
            a = self.parent[self.mate[a]]
        while True:
            b = self.base[b]
            if seen[b]:
                return b
            b = self.parent[self.mate[b]]

    def _mark_path(self, v: int, common: int, child: int, in_blossom: list[bool]) -> None:
        while self.base[v] != common:
            in_blossom[self.base[v]] = in_blossom[self.base[self.mate[v]]] = True
            self.parent[v] = child
            child = self.mate[v]
            v = self.parent[self.mate[v]]
