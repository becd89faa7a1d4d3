"""Tournament reads."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, QuerySet

from bots.models import MatchSeat
from games.models import Match

from .models import Entrant, Tournament
from .standings import MatchResult, StandingRow, standings


def tournament_list() -> QuerySet[Tournament]:
    return Tournament.objects.all()


def tournament_entrants(*, tournament: Tournament) -> list[Entrant]:
    return list(tournament.entrants.select_related("version__bot"))


def tournament_standings(*, tournament: Tournament) -> list[tuple[Entrant, StandingRow]]:
    """Each entrant with its standing row, best first, from the finished matches."""
    entrants = tournament_entrants(tournament=tournament)
    entrant_of_version = {entrant.version_id: entrant for entrant in entrants}
    seats = MatchSeat.objects.filter(
        match__tournament_match__tournament=tournament, match__status=Match.Status.FINISHED
    ).values_list("match_id", "seat", "version_id", "match__winner", "match__scores")
    by_match: dict[int, dict] = defaultdict(dict)
    for match_id, seat, version_id, winner, scores in seats:
        by_match[match_id][seat] = entrant_of_version[version_id].pk
        by_match[match_id]["result"] = (winner, scores)
    results = [
        MatchResult(entrants=(m[0], m[1]), winner=m["result"][0], scores=tuple(m["result"][1]))
        for m in by_match.values()
    ]
    by_id = {entrant.pk: entrant for entrant in entrants}
    return [(by_id[row.entrant], row) for row in standings(list(by_id), results)]


def tournament_progress_counts(*, tournament: Tournament) -> dict[str, int]:
    rows = (
        Match.objects.filter(tournament_match__tournament=tournament)
        .values_list("status")
        .annotate(count=Count("id"))
    )
    return {**dict.fromkeys(Match.Status.values, 0), **dict(rows)}


def tournament_matches(*, tournament: Tournament) -> QuerySet[Match]:
    return (
        Match.objects.filter(tournament_match__tournament=tournament)
        .prefetch_related("seats__version__bot")
        .order_by("tournament_match__round", "tournament_match__set_number", "id")
    )
