"""Celery tasks of the tournaments app: thin wrappers that load by id and call a service."""

from __future__ import annotations

from celery import shared_task

from base.retry import retrying
from bots.services.code_cache import CodeUnavailable
from matches.play import MatchLimits, match_play, matches_play_as_sets

from .models import Tournament, TournamentMatch
from .monitoring import task_observed
from .services.scheduling import tournament_match_settle, tournament_matches_held
from .tick import tournaments_tick

#: Retries of a match whose bots' code no store this worker reads gave yet (``base.retry``).
CODE_RETRY = retrying(CodeUnavailable)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True, **CODE_RETRY)
def tournament_match_play(match_id: int) -> None:
    """Play one tournament match under its tournament's limits, then settle its set.

    A second delivery plays nothing; a worker that cannot get a bot's code retries later.
    """
    link = TournamentMatch.objects.select_related("tournament").get(match_id=match_id)
    tournament = link.tournament
    with task_observed(match_ids=[match_id]):
        if tournament.status == Tournament.Status.RUNNING and link.replaced_at is None:
            match_play(match_id=match_id, limits=_match_limits(tournament))
    tournament_match_settle(match_id=match_id)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True, **CODE_RETRY)
def tournament_series_play(match_ids: list[int]) -> None:
    """Play a task's tournament matches (``tournaments.series``: whole sets of one pairing)
    under the sealing rule (``matches.play.matches_play_as_sets``: a run's first seatings,
    their processes ended, then its second seatings), settling each match's set as it ends.

    Each match is claimed only as it starts: a second delivery (its worker died) plays the
    matches still pending, and the one that was running is the tick's to replace.
    """
    first = TournamentMatch.objects.select_related("tournament").get(match_id=match_ids[0])
    done: set[int] = set()

    def playing(match_id: int) -> bool:
        # The matches still ahead are this task's: the tick must not send them elsewhere,
        # where a fresh process could play a deal this task's series will play too.
        tournament_matches_held(match_ids=[m for m in match_ids if m not in done])
        return TournamentMatch.objects.filter(
            match_id=match_id,
            replaced_at__isnull=True,
            tournament__status=Tournament.Status.RUNNING,
        ).exists()

    limits = _match_limits(first.tournament)
    with task_observed(match_ids=match_ids):
        for match_id in matches_play_as_sets(match_ids=match_ids, limits=limits, playing=playing):
            done.add(match_id)
            tournament_match_settle(match_id=match_id)


def _match_limits(tournament: Tournament) -> MatchLimits:
    return MatchLimits(
        decision_seconds=tournament.decision_timeout,
        time_bank_seconds=tournament.time_bank_seconds,
        sandbox_overrides=tournament.sandbox_overrides or {},
    )


@shared_task(ignore_result=True)
def tournament_tick() -> None:
    """The periodic tick, sent by django-celery-beat every ``BAIZE_TICK_SECONDS``."""
    tournaments_tick()
