"""Celery tasks of the tournaments app: thin wrappers that load by id and call a service."""

from __future__ import annotations

from celery import shared_task

from bots.tasks import CODE_RETRY
from matches.play import match_play

from .models import Tournament, TournamentMatch
from .scheduling import tournament_match_settle
from .tick import tournaments_tick


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True, **CODE_RETRY)
def tournament_match_play(match_id: int) -> None:
    """Play one tournament match under its tournament's limits, then settle its set.

    A second delivery plays nothing; a worker that cannot get a bot's code retries later.
    """
    link = TournamentMatch.objects.select_related("tournament").get(match_id=match_id)
    tournament = link.tournament
    if tournament.status == Tournament.Status.RUNNING and link.replaced_at is None:
        match_play(
            match_id=match_id,
            decision_seconds=tournament.decision_timeout,
            time_bank_seconds=tournament.time_bank_seconds,
            sandbox_overrides=tournament.sandbox_overrides,
        )
    tournament_match_settle(match_id=match_id)


@shared_task(ignore_result=True)
def tournament_tick() -> None:
    """The periodic tick, sent by django-celery-beat every ``BAIZE_TICK_SECONDS``."""
    tournaments_tick()
