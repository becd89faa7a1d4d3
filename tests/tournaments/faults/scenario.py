"""The fault-injection test's hands inside the private services: ``python -m
tests.tournaments.faults.scenario create`` makes and starts a tournament and prints its id;
``... watch ID`` prints, as one line of JSON for each line it reads, how far it got and how
its matches were logged (one process for the whole test: starting Django for each look cost
a CPU-second, once a second, beside the workers under test)."""

from __future__ import annotations

import json
import sys

import django


def create() -> int:
    from tests.tournaments.conftest import strategy_bots
    from tournaments.services import round_robin_create

    versions = strategy_bots(4)
    tournament = round_robin_create(
        name="faults", game_id="snag", versions=versions, sets_per_pair=2, secret=5
    )
    return tournament.pk


def report(tournament_id: int) -> dict:
    from matches.models import Match
    from matches.selectors import match_event_count
    from tournaments.models import Tournament, TournamentMatch

    links = TournamentMatch.objects.filter(tournament_id=tournament_id)
    matches = Match.objects.filter(tournament_match__in=links)
    finished = [m for m in matches if m.status == Match.Status.FINISHED]
    for match in finished:
        match.starts = match_event_count(match_id=match.pk, type="match_started")
        match.results = match_event_count(match_id=match.pk, type="match_finished")
    slots = [
        (link.duplicate_set_id, link.first_seat)
        for link in links.filter(match__status=Match.Status.FINISHED)
    ]
    return {
        "status": Tournament.objects.get(pk=tournament_id).status,
        "matches": len(matches),
        "finished": len(finished),
        "replaced": links.filter(replaced_at__isnull=False).count(),
        "finished_logged_once": all(m.starts == 1 and m.results == 1 for m in finished),
        "finished_per_slot": sorted({slots.count(slot) for slot in slots}),
        "running": matches.filter(status=Match.Status.RUNNING).count(),
        "current_unfinished": links.filter(replaced_at__isnull=True)
        .exclude(match__status=Match.Status.FINISHED)
        .count(),
    }


def watch(tournament_id: int) -> None:
    """A report for each line read; one that fails (PostgreSQL stopped) is printed as
    ``{"error": ...}``, and the next one connects afresh."""
    from django.db import Error, connection

    for _ in sys.stdin:
        try:
            line = json.dumps(report(tournament_id))
        except Error as error:
            connection.close()
            line = json.dumps({"error": str(error)})
        print(line, flush=True)


if __name__ == "__main__":
    django.setup()
    if sys.argv[1] == "create":
        print(create())
    else:
        watch(int(sys.argv[2]))
