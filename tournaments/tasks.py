"""Celery tasks of the tournaments app: thin wrappers that load by id and call a service."""

from __future__ import annotations

from celery import shared_task

from bots.services import match_play

from .models import TournamentMatch
from .services import tournament_progress


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def tournament_match_play(match_id: int) -> None:
    """Play one tournament match; a second delivery of a claimed match does nothing."""
    link = TournamentMatch.objects.select_related("tournament").get(match_id=match_id)
    match_play(match_id=match_id, decision_seconds=link.tournament.decision_timeout)
    tournament_progress(tournament_id=link.tournament_id)
