"""Swiss pairing systems as pure functions: the FIDE Dutch system (the default) and Monrad.

A round is paired from the ranking (best first: by score, then seed, i.e. rating), the
scores, the pairs that have met and the entrants that have had a bye. No Django, no I/O;
maximum matchings are networkx's (Edmonds' blossom algorithm).

Both systems share two absolute rules (FIDE C.04.1 b and d):

- **No rematch** while the round can be paired without one.
- **One bye each.** An odd field gives the bye to the lowest-ranked entrant who has not had
  one and whose bye leaves a rematch-free pairing of the others (if no bye does, to the
  lowest-ranked who has not had one); a second bye only once everyone has had one.

**Monrad** pairs from the top: each entrant meets the highest-ranked free entrant it has
not met, provided the rest can still be paired without a rematch (1 v 2, 3 v 4, ...). When
no rematch-free pairing exists it pairs 1 v 2, 3 v 4 regardless. This is how Baize paired
every Swiss round before the Dutch system came.

**Dutch**, a subset of FIDE C.04.3 (the Dutch system, 2017 rules); D1 to D9 are this
module's numbers, FIDE's articles in brackets:

- D1 Score groups [A.3]. Entrants with equal scores form a score group; groups are paired
  from the top. A *bracket* is a score group (its *residents*) plus the entrants moved down
  from above (*MDPs*, for moved-down players), in ranking order.
- D2 Completion [C.4]. A bracket's pairing is accepted only if everyone left (its floaters
  and every lower group) can still be paired without a rematch.
- D3 How many pairs [C.5, C.6]. A bracket makes as many pairs as D2 allows and, of those,
  pairs as many MDPs as it can.
- D4 MDPs first [B.3]. Highest first, each MDP meets the highest-ranked resident that keeps
  D3's numbers reachable; an MDP that cannot is left to float on.
- D5 Halves [A.6, B.3]. Of the residents left, S1 is the top P (P: the pairs D3 leaves
  them) and S2 the rest, and S1[i] meets S2[i]: round 1 of eight is 1-5, 2-6, 3-7, 4-8.
- D6 Transpositions [D.1]. If that pairs two entrants who met (or breaks D2), S2 is
  reordered, lexicographically by rank: S1[0] meets the first S2 entrant that can still
  lead to a valid pairing, then S1[1], and so on.
- D7 Exchanges [D.2]. If no order of S2 works, entrants are swapped between S1 and S2
  (``exchanges``): fewest first, then the smallest difference between the rank sums moved,
  then moving the lowest of S1, then the highest of S2; each split with its transpositions.
- D8 Floaters [A.4]. A bracket's unpaired entrants, the lowest by D5-D7's order, move down
  to the next bracket.
- D9 Maximum-weight matching. What D4-D8 leave undone is paired by a maximum-weight perfect
  matching with the fewest rematches, then the smallest sum of squared score differences:
  the floaters left below the last group, a bracket whose first ``EXCHANGE_LIMIT`` splits
  all fail (its pairs are then those of D3's optimal matching), and the whole round when it
  cannot be paired without a rematch.

Left out: colours (C.3, C.8-C.11, E: a duplicate set plays both seats), float history
(C.12-C.19), the look-ahead to the next bracket (C.7), exchanges of MDPs with the limbo
(D.3) beyond D4's order, and the collapsed last bracket (A.9), whose job D2 and D9 do.
FIDE leaves the bye to whoever the last bracket cannot pair; here it is chosen first.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import networkx as nx

T = TypeVar("T", bound=Hashable)

#: Splits of one bracket into S1 and S2 (D7) tried before its pairs come from D9.
EXCHANGE_LIMIT = 200


class PairingSystem(enum.StrEnum):
    DUTCH = "dutch"
    MONRAD = "monrad"


@dataclass(frozen=True)
class SwissRound(Generic[T]):
    """One Swiss round: pairs with the higher-ranked entrant first, and who has the bye."""

    pairs: tuple[tuple[T, T], ...]
    bye: T | None
    rematches: int


def swiss_round(
    ranking: Sequence[T],
    *,
    scores: Mapping[T, float],
    played: Collection[frozenset[T]],
    had_bye: Collection[T],
    system: PairingSystem = PairingSystem.DUTCH,
) -> SwissRound[T]:
    """Pair the next round of ``ranking`` (best first: by score, then rating) by ``system``.

    ``played`` holds the pairs that have met (``frozenset({a, b})``), ``had_bye`` the
    entrants that have had a bye. ``ValueError`` if an entrant is ranked twice, has no
    score, or the ranking is not by score. The rules are in the module docstring.
    """
    _ranking_check(ranking, scores)

    def never_met(a: T, b: T) -> bool:
        return frozenset((a, b)) not in played

    bye = _bye(ranking, had_bye, never_met)
    field = [entrant for entrant in ranking if entrant != bye]
    if system is PairingSystem.MONRAD:
        pairs = _monrad_pairs(field, never_met)
    elif has_perfect_pairing(field, never_met):
        pairs = _dutch_pairs(field, scores, never_met)
    else:
        pairs = _closest_pairing(field, scores, never_met)
    ordered = _in_ranking_order(pairs, ranking)
    return SwissRound(ordered, bye, sum(not never_met(a, b) for a, b in ordered))


def _in_ranking_order(
    pairs: Sequence[tuple[T, T]], ranking: Sequence[T]
) -> tuple[tuple[T, T], ...]:
    """The higher-ranked entrant first in each pair, the pairs by their first entrant."""
    rank = {entrant: index for index, entrant in enumerate(ranking)}
    oriented = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs]
    return tuple(sorted(oriented, key=lambda pair: rank[pair[0]]))


def _ranking_check(ranking: Sequence[T], scores: Mapping[T, float]) -> None:
    if len(set(ranking)) != len(ranking):
        raise ValueError("an entrant appears twice in the ranking")
    missing = [entrant for entrant in ranking if entrant not in scores]
    if missing:
        raise ValueError(f"no score for {missing!r}")
    if any(scores[a] < scores[b] for a, b in itertools.pairwise(ranking)):
        raise ValueError("the ranking is not in order of score")


def has_perfect_pairing(players: Sequence[T], allowed: Callable[[T, T], bool]) -> bool:
    """Whether ``players`` can all be paired using only ``allowed`` pairs (maximum matching)."""
    if len(players) % 2:
        return False
    graph = nx.Graph()
    graph.add_nodes_from(players)
    graph.add_edges_from((a, b) for a, b in itertools.combinations(players, 2) if allowed(a, b))
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(players)


def _bye(ranking: Sequence[T], had_bye: Collection[T], legal: Callable[[T, T], bool]) -> T | None:
    if len(ranking) % 2 == 0:
        return None
    from_the_bottom = list(reversed(ranking))
    candidates = [entrant for entrant in from_the_bottom if entrant not in had_bye]
    candidates = candidates or from_the_bottom
    for bye in candidates:
        if has_perfect_pairing([entrant for entrant in ranking if entrant != bye], legal):
            return bye
    return candidates[0]


# --- Monrad ---------------------------------------------------------------------------


def _monrad_pairs(field: Sequence[T], legal: Callable[[T, T], bool]) -> list[tuple[T, T]]:
    if not has_perfect_pairing(field, legal):
        return list(zip(field[::2], field[1::2], strict=True))
    straight = _greedy(field, legal)
    if straight is not None:  # every pair legal and nobody left over: nothing to look ahead for
        return straight
    pairs, free = [], list(field)
    while free:
        top, rest = free[0], free[1:]
        opponent = next(
            other
            for other in rest
            if legal(top, other) and has_perfect_pairing(_without(rest, other), legal)
        )
        pairs.append((top, opponent))
        free = _without(rest, opponent)
    return pairs


def _greedy(field: Sequence[T], legal: Callable[[T, T], bool]) -> list[tuple[T, T]] | None:
    pairs, free = [], list(field)
    while free:
        top, rest = free[0], free[1:]
        opponent = next((other for other in rest if legal(top, other)), None)
        if opponent is None:
            return None
        pairs.append((top, opponent))
        free = _without(rest, opponent)
    return pairs


def _without(players: Sequence[T], *gone: T) -> list[T]:
    return [player for player in players if player not in gone]


# --- Dutch ------------------------------------------------------------------------------


def _dutch_pairs(
    field: Sequence[T], scores: Mapping[T, float], legal: Callable[[T, T], bool]
) -> list[tuple[T, T]]:
    """D1-D9 on a field that has a rematch-free pairing."""
    groups = [list(group) for _, group in itertools.groupby(field, key=scores.__getitem__)]
    pairs: list[tuple[T, T]] = []
    floaters: list[T] = []
    for index, residents in enumerate(groups):
        lower = [entrant for group in groups[index + 1 :] for entrant in group]
        bracket_pairs, floaters = _Bracket(floaters, residents, lower, legal).pair()
        pairs += bracket_pairs
    return pairs + _closest_pairing(floaters, scores, legal)


class _Bracket(Generic[T]):
    """One bracket of D1: its MDPs and residents, everyone below it, and the legal pairs."""

    def __init__(
        self,
        mdps: Sequence[T],
        residents: Sequence[T],
        lower: Sequence[T],
        legal: Callable[[T, T], bool],
    ) -> None:
        self.mdps, self.residents, self.lower = list(mdps), list(residents), list(lower)
        self.legal = legal
        #: A pair inside the bracket in D3's weights: worth more than all MDP bonuses.
        self.inside = len(self.mdps) + len(self.residents) + 1
        self.open_mdps = set(self.mdps)
        self.open_residents = set(self.residents)
        self.paired: set[T] = set()

    def pair(self) -> tuple[list[tuple[T, T]], list[T]]:
        """The bracket's pairs and its floaters (D8), in ranking order."""
        straight = self._straight()
        if straight is not None:
            return straight
        target = self._best_weight(self._left())
        assert target is not None, "D2 held when the bracket above was paired"
        pairs, target = self._pair_mdps(target)
        residents = [r for r in self.residents if r in self.open_residents]
        limbo = [m for m in self.mdps if m not in self.paired]
        remainder, floating = self._pair_remainder(residents, limbo, target // self.inside)
        return pairs + remainder, limbo + floating

    def _straight(self) -> tuple[list[tuple[T, T]], list[T]] | None:
        """D4-D6 without looking back: each MDP, then each of S1, takes the first legal
        partner. Whenever that reaches D3's upper bounds and passes D2, it is the rules'
        answer: each choice was the first that could work."""
        residents, pairs = list(self.residents), []
        for mdp in self.mdps[: len(residents)]:
            partner = next((r for r in residents if self.legal(mdp, r)), None)
            if partner is None:
                return None
            pairs.append((mdp, partner))
            residents.remove(partner)
        half = len(residents) // 2
        found = _halves(residents[:half], residents[half:], self.legal)
        if found is None:
            return None
        floaters = self.mdps[len(self.residents) :] + found[1]
        if not has_perfect_pairing(floaters + self.lower, self.legal):
            return None
        return pairs + found[0], floaters

    def _left(self) -> list[T]:
        return [p for p in (*self.mdps, *self.residents, *self.lower) if p not in self.paired]

    def _weight(self, a: T, b: T) -> int | None:
        """D3's worth of a pair: MDP-resident above resident-resident, 0 outside the bracket."""
        if not self.legal(a, b):
            return None
        mdps = (a in self.open_mdps) + (b in self.open_mdps)
        residents = (a in self.open_residents) + (b in self.open_residents)
        if mdps == 1 and residents == 1:
            return self.inside + 1
        return self.inside if residents == 2 else 0

    def _best_weight(self, players: Sequence[T]) -> int | None:
        matching = _max_weight_perfect(players, self._weight)
        if matching is None:
            return None
        return sum(self._weight(a, b) or 0 for a, b in matching)

    def _pair_mdps(self, target: int) -> tuple[list[tuple[T, T]], int]:
        """D4: the MDP pairs, and D3's weight the residents left must still reach."""
        pairs = []
        for mdp in self.mdps:
            partner = next((r for r in self.residents if self._keeps(mdp, r, target)), None)
            # Unpaired, it floats on at no cost: no optimal pairing gives it a resident.
            self.open_mdps.discard(mdp)
            if partner is not None:
                self.open_residents.discard(partner)
                self.paired |= {mdp, partner}
                pairs.append((mdp, partner))
                target -= self.inside + 1
        return pairs, target

    def _keeps(self, mdp: T, resident: T, target: int) -> bool:
        """Whether pairing them still lets the bracket reach D3's ``target``."""
        if resident not in self.open_residents or not self.legal(mdp, resident):
            return False
        rest = _without(self._left(), mdp, resident)
        return self._best_weight(rest) == target - (self.inside + 1)

    def _pair_remainder(
        self, residents: list[T], limbo: list[T], pairs: int
    ) -> tuple[list[tuple[T, T]], list[T]]:
        """D5-D7 on the residents the MDPs left, making ``pairs`` pairs; D9 if it must."""
        rest = [*limbo, *self.lower]
        for s1, s2 in itertools.islice(_splits(residents, pairs), EXCHANGE_LIMIT):
            found = _transposed(s1, s2, rest, self.legal)
            if found is not None:
                return found
        matching = _max_weight_perfect([*residents, *rest], self._weight)
        assert matching is not None, "D3 found such a pairing"
        inside = [pair for pair in matching if set(pair) <= self.open_residents]
        paired = {p for pair in inside for p in pair}
        return inside, [r for r in residents if r not in paired]


def _halves(
    s1: Sequence[T], s2: Sequence[T], legal: Callable[[T, T], bool]
) -> tuple[list[tuple[T, T]], list[T]] | None:
    """S1[i] with the first legal S2 entrant left, or None if one of S1 finds none."""
    free, pairs = list(s2), []
    for a in s1:
        partner = next((b for b in free if legal(a, b)), None)
        if partner is None:
            return None
        pairs.append((a, partner))
        free.remove(partner)
    return pairs, free


def _transposed(
    s1: Sequence[T], s2: Sequence[T], rest: Sequence[T], legal: Callable[[T, T], bool]
) -> tuple[list[tuple[T, T]], list[T]] | None:
    """D6: the first order of S2, lexicographically, that pairs all of S1 and passes D2."""
    straight = _halves(s1, s2, legal)
    if straight is not None and has_perfect_pairing([*straight[1], *rest], legal):
        return straight
    if not _split_pairable(s1, s2, rest, legal):
        return None
    pairs, free = [], list(s2)
    for index, a in enumerate(s1):
        # The split passed the check, and each choice keeps it passing: a partner exists.
        partner = next(
            b
            for b in free
            if legal(a, b) and _split_pairable(s1[index + 1 :], _without(free, b), rest, legal)
        )
        pairs.append((a, partner))
        free.remove(partner)
    return pairs, free


def _split_pairable(
    s1: Sequence[T], s2: Sequence[T], rest: Sequence[T], legal: Callable[[T, T], bool]
) -> bool:
    """Whether S1 can all meet S2 while S2's leftovers and ``rest`` pair legally (D2)."""
    first, second = set(s1), set(s2)

    def allowed(a: T, b: T) -> bool:
        if a in first or b in first:
            return bool({a, b} & first and {a, b} & second) and legal(a, b)
        return legal(a, b)

    return has_perfect_pairing([*s1, *s2, *rest], allowed)


def _splits(residents: Sequence[T], pairs: int) -> Iterator[tuple[list[T], list[T]]]:
    """S1 the top ``pairs`` residents and S2 the rest (D5), then the exchanges of D7."""
    yield list(residents[:pairs]), list(residents[pairs:])
    numbers = range(1, len(residents) + 1)
    for out_of_s1, into_s1 in exchanges(numbers[:pairs], numbers[pairs:]):
        s1 = sorted({*numbers[:pairs]} - {*out_of_s1} | {*into_s1})
        s2 = sorted({*numbers[pairs:]} - {*into_s1} | {*out_of_s1})
        yield [residents[n - 1] for n in s1], [residents[n - 1] for n in s2]


def exchanges(
    s1: Sequence[int], s2: Sequence[int]
) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """FIDE's order of exchanges between S1 and S2 (C.04.3, 2017, D.2), as pairs
    (moved out of S1, moved into S1) of bracket sequence numbers (1 is the bracket's top).

    Fewer entrants swapped first; then the smaller difference between the sums moved;
    then the exchange moving the higher number out of S1; then the one moving the lower
    number into S1. With S1 = 1..5 and S2 = 6..10 it begins 5-6, 5-7, 4-6, 5-8, 4-7, 3-6.
    """
    for size in range(1, min(len(s1), len(s2)) + 1):
        level = itertools.product(
            itertools.combinations(s1, size), itertools.combinations(s2, size)
        )
        yield from sorted(level, key=_exchange_order)


def _exchange_order(exchange: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple:
    out_of_s1, into_s1 = exchange
    return (
        sum(into_s1) - sum(out_of_s1),
        tuple(-number for number in sorted(out_of_s1, reverse=True)),
        tuple(sorted(into_s1)),
    )


# --- Maximum-weight matching (D9) -------------------------------------------------------


def _closest_pairing(
    players: Sequence[T], scores: Mapping[T, float], legal: Callable[[T, T], bool]
) -> list[tuple[T, T]]:
    """D9: a perfect pairing with the fewest illegal pairs (rematches), then the smallest
    sum of squared score differences."""
    if not players:
        return []
    spread = max(scores[p] for p in players) - min(scores[p] for p in players)
    # More than any sum of squared differences, so one rematch fewer always wins.
    rematch = 1 + len(players) * spread**2

    def cost(a: T, b: T) -> float:
        return (0 if legal(a, b) else rematch) + (scores[a] - scores[b]) ** 2

    # Every perfect matching has the same number of pairs: a constant minus the cost is a
    # weight whose maximum is the least cost, and it stays positive.
    ceiling = rematch + spread**2 + 1
    matching = _max_weight_perfect(players, lambda a, b: ceiling - cost(a, b))
    assert matching is not None, "every pair is allowed here"
    return matching


def _max_weight_perfect(
    players: Sequence[T], weight: Callable[[T, T], float | None]
) -> list[tuple[T, T]] | None:
    """A maximum-weight perfect matching over the pairs whose weight is not None, or None."""
    if len(players) % 2:
        return None
    graph = nx.Graph()
    graph.add_nodes_from(players)
    for a, b in itertools.combinations(players, 2):
        value = weight(a, b)
        if value is not None:
            graph.add_edge(a, b, weight=value)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(players):
        return None
    return [tuple(pair) for pair in matching]
