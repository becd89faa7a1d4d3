"""Ladder fixtures: authors with bots that play the built-in strategies, and playing in
this process what a worker would."""

from __future__ import annotations

from django.contrib.auth.models import User

from matches.models import Match
from tests.tournaments.conftest import strategy_bots
from tournaments.models import Tournament
from tournaments.tasks import tournament_match_play


def bots_of(owner: User, count: int, game: str = "snag"):
    """``count`` ready versions of bots owned by ``owner``: heuristic, random, heuristic..."""
    return strategy_bots(count, game=game, owner=owner)


def play_pending(tournament: Tournament, limit: int = 2000) -> int:
    """Play the tournament's pending current matches here, as a worker would; how many."""
    played = 0
    for _ in range(limit):
        pending = list(
            Match.objects.filter(
                tournament_match__tournament=tournament,
                tournament_match__replaced_at__isnull=True,
                status=Match.Status.PENDING,
            ).values_list("id", flat=True)
        )
        if not pending:
            break
        for match_id in pending:
            tournament_match_play(match_id)
            played += 1
    return played


from tests.tournaments.conftest import celery_workers, committed_db  # noqa: E402, F401
