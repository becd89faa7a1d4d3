"""Who plays whom on the ladder (pure): placement first, then by need, near in rating.

The matchmaker runs on each tick with the free capacity (ladder sets it may start) and a
picture of every active ladder version. A version with a set in flight waits; the others
are served in this order:

1. **starving**: a version that has waited ``starving_seconds`` or more since its last set
   (or since it joined) comes first, longest wait first;
2. **placement**: a version with fewer than ``placement_sets`` ladder sets, fewest first;
   its k-th placement set is against the opponent at the k-th point of a spread over the
   table (middle, quarters, tenths...), so its first sets sample weak and strong bots alike;
3. **by need**: longest wait, then fewest sets in the recent window (ordering by the
   recent count first would leave a version one set ahead of the field waiting until it
   starves).

Past placement the opponent is the free version nearest in rating ``mu`` among those within
``window_sigmas`` of the chooser's own uncertainty (never narrower than ``min_window``): the
window narrows as the rating settles. Two versions play at most ``pair_cap`` sets in the
recent window while another opponent below the cap is free; when every free opponent is
past it (a small field), the one met least is chosen, so capacity is never left idle.

A pair, once paired, plays ``sets_per_pairing`` sets in a row (``pairing_sizes``): a
*pairing*. Every count here is of sets, not pairings: ``placement_sets``, a version's
``sets`` and ``recent_sets``, and the ``pair_cap`` on what two versions played recently.

**No version starves**: with capacity for it, that is whenever the sets in flight leave a
free opponent, a version that has waited ``starving_seconds`` is paired on the next tick,
ahead of everyone else; so the longest any version waits is ``starving_seconds`` plus a tick
plus the length of the sets in flight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Where on the table (0 the top, 1 the bottom) the k-th placement opponent is taken.
PLACEMENT_SPREAD = (0.5, 0.25, 0.75, 0.1, 0.9, 0.4, 0.6, 0.2, 0.8, 0.5)


@dataclass(frozen=True)
class MatchmakingRules:
    placement_sets: int = 10
    pair_cap: int = 3
    window_sigmas: float = 2.0
    min_window: float = 1.0
    starving_seconds: float = 600.0
    #: Sets a pair plays in a row once paired: its two seatings are then two series of
    #: this many matches, a bot process per seat for each (``tournaments.series``).
    sets_per_pairing: int = 1


@dataclass(frozen=True)
class LadderVersion:
    """One active ladder version as the matchmaker sees it."""

    id: int
    mu: float
    sigma: float
    #: Ladder sets it has finished, ever, and in the recent window.
    sets: int
    recent_sets: int
    #: When its last ladder set started, or when it joined if it never played (seconds).
    waiting_since: float
    #: A ladder set of it is in flight.
    busy: bool = False


def matchmake(
    versions: Sequence[LadderVersion],
    *,
    recent_pairs: Mapping[frozenset[int], int],
    capacity: int,
    now: float,
    rules: MatchmakingRules = MatchmakingRules(),
) -> list[tuple[int, int]]:
    """Up to ``capacity`` new pairs ``(chooser, opponent)`` of free versions."""
    free = {version.id: version for version in versions if not version.busy}
    table = sorted(versions, key=lambda version: (-version.mu, version.id))
    pairs: list[tuple[int, int]] = []
    for chooser in sorted(free.values(), key=lambda version: _need(version, now, rules)):
        if len(pairs) >= capacity:
            break
        if chooser.id not in free:
            continue
        opponent = _opponent(chooser, free, table, recent_pairs, now, rules)
        if opponent is not None:
            pairs.append((chooser.id, opponent.id))
            del free[chooser.id], free[opponent.id]
    return pairs


def pairing_sizes(free_sets: int, rules: MatchmakingRules = MatchmakingRules()) -> list[int]:
    """The sets of each pairing ``free_sets`` of capacity has room for: whole batches of
    ``sets_per_pairing``, then one of what is left, so no capacity idles."""
    batches, rest = divmod(max(free_sets, 0), rules.sets_per_pairing)
    return [rules.sets_per_pairing] * batches + ([rest] if rest else [])


def _starving(version: LadderVersion, now: float, rules: MatchmakingRules) -> bool:
    return now - version.waiting_since >= rules.starving_seconds


def _need(version: LadderVersion, now: float, rules: MatchmakingRules) -> tuple:
    if _starving(version, now, rules):
        return (0, version.waiting_since, version.id)
    if version.sets < rules.placement_sets:
        return (1, version.sets, version.waiting_since, version.id)
    return (2, version.waiting_since, version.recent_sets, version.id)


def _opponent(
    chooser: LadderVersion,
    free: Mapping[int, LadderVersion],
    table: Sequence[LadderVersion],
    recent_pairs: Mapping[frozenset[int], int],
    now: float,
    rules: MatchmakingRules,
) -> LadderVersion | None:
    def met(other: LadderVersion) -> int:
        return recent_pairs.get(frozenset((chooser.id, other.id)), 0)

    others = [v for v in table if v.id != chooser.id and v.id in free]
    if not others:
        return None
    # The cap is a preference: past it, the pair that met least meets again, so a small
    # field never leaves capacity idle.
    allowed = [v for v in others if met(v) < rules.pair_cap]
    if not allowed:
        fewest = min(met(v) for v in others)
        allowed = [v for v in others if met(v) == fewest]
    if chooser.sets < rules.placement_sets:
        # One spot of the spread for each pairing, however many sets it plays.
        pairings = chooser.sets // rules.sets_per_pairing
        spot = PLACEMENT_SPREAD[pairings % len(PLACEMENT_SPREAD)]
        return allowed[round(spot * (len(allowed) - 1))]
    window = max(rules.min_window, rules.window_sigmas * chooser.sigma)
    near = [v for v in allowed if abs(v.mu - chooser.mu) <= window] or allowed
    return min(near, key=lambda v: (met(v), abs(v.mu - chooser.mu), v.id))
