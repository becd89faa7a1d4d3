"""Which matches one worker task plays: whole duplicate sets of one pairing, set after set.

A task's matches are those of one pairing, in set order, each set's two matches (one deal,
seats swapped: the *twins*) next to each other, so one task plays both seatings of a set
one after the other and they never overlap in time (the claim refuses a match whose twin is
running elsewhere: ``matches.services``). The task plays them under the sealing rule
(``matches.play.matches_play_as_sets``, through ``arena.set_player``): the first seatings of
its sets as one series (one bot process per seat where the bots allow it), those processes
ended, then the second seatings as a fresh series, so every process that saw a deal is
gone before its twin is played.

A task holds at most ``BAIZE_SERIES_MAX_MATCHES`` sets, so a series (one process) plays at
most that many matches, and a set is never split; a pairing
of ``SPREAD_FROM_SETS`` sets or more is spread over at least two tasks, so that a lone
challenge keeps two worker processes busy, as it did when each seating was a task of its
own. A match of no pairing (none known) is a task of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.conf import settings

from .models import TournamentMatch

#: A pairing with this many sets to play or more goes to at least two tasks.
SPREAD_FROM_SETS = 4


def match_series(*, match_ids: Sequence[int]) -> list[list[int]]:
    """``match_ids`` cut into the tasks that play them, each in set order, twins together."""
    rows = TournamentMatch.objects.filter(match_id__in=match_ids).values_list(
        "match_id", "duplicate_set__pairing_id", "duplicate_set__number", "first_seat"
    )
    place = {match_id: (pairing, number, seat) for match_id, pairing, number, seat in rows}
    by_pairing: dict[int, dict[int, list[int]]] = {}
    alone: list[list[int]] = []
    for match_id in match_ids:
        if match_id not in place:
            alone.append([match_id])
            continue
        pairing, number, _ = place[match_id]
        by_pairing.setdefault(pairing, {}).setdefault(number, []).append(match_id)
    tasks: list[list[int]] = []
    for sets in by_pairing.values():
        ordered = [
            sorted(twins, key=lambda match_id: place[match_id][2])
            for _, twins in sorted(sets.items())
        ]
        tasks += sets_in_tasks(ordered)
    return tasks + alone


def sets_in_tasks(sets: list[list[int]]) -> list[list[int]]:
    """A pairing's sets (each its pending matches) in consecutive runs of whole sets."""
    per_task = settings.BAIZE_SERIES_MAX_MATCHES
    if len(sets) >= SPREAD_FROM_SETS:
        per_task = min(per_task, math.ceil(len(sets) / 2))
    return [
        [match_id for twins in sets[start : start + per_task] for match_id in twins]
        for start in range(0, len(sets), per_task)
    ]
