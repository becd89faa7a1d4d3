"""Series of tournament matches: which matches one worker plays with one bot process per seat.

A series is the matches of one pairing with the same seating (the first entrant in seat 0
for all, or in seat 1 for all), in set order, at most ``BAIZE_SERIES_MAX_MATCHES`` long.
A duplicate set's two matches (one deal, seats swapped) are thus always in two different
series: no bot process ever sees a deal from both seats (``docs/bot-protocol.md``, "Series").
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from .models import TournamentMatch


def match_series(*, match_ids: Sequence[int]) -> list[list[int]]:
    """``match_ids`` cut into series, each in the order given; a match of no pairing (none
    known) is a series of its own."""
    keys = dict(
        (match_id, (pairing_id, first_seat))
        for match_id, pairing_id, first_seat in TournamentMatch.objects.filter(
            match_id__in=match_ids
        ).values_list("match_id", "duplicate_set__pairing_id", "first_seat")
    )
    longest = settings.BAIZE_SERIES_MAX_MATCHES
    open_series: dict[tuple[int, int], list[int]] = {}
    series: list[list[int]] = []
    for match_id in match_ids:
        key = keys.get(match_id)
        current = open_series.get(key) if key is not None else None
        if current is None or len(current) >= longest:
            current = []
            series.append(current)
            if key is not None:
                open_series[key] = current
        current.append(match_id)
    return series
