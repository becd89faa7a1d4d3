"""The periodic tick (django-celery-beat): everything that moves on without anyone watching.

Each step is idempotent and claims its work by a conditional update, so two ticks running
at once (a slow tick overlapping the next one, or two beat processes by mistake) do each
thing once. The tick is also the safety net behind the workers: whatever a dead worker
left undone (a set not settled, a set not rated, a round not created) it does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from matches.models import Match
from matches.services import match_lease_expire

from . import selectors
from .models import Tournament, TournamentMatch, current
from .monitoring import match_failed_observe
from .ratings.services import ratings_apply_pending
from .services import recurring_tournaments_spawn, tournament_start
from .services.scheduling import (
    duplicate_set_settle,
    match_replace,
    matches_resend,
    tournament_advance,
    tournament_match_failure_note,
)

#: Why a failed match is replaced, when nothing more precise was recorded.
FAILED_ON_WORKER = "it failed on its worker (the worker's log has the error)"


@dataclass(frozen=True)
class TickReport:
    spawned: int
    started: int
    expired: int
    replaced: int
    redispatched: int
    settled: int
    rated: int
    advanced: int


def tournaments_tick(*, now: datetime | None = None) -> TickReport:
    """One pass of the scheduler; the report counts what it did."""
    now = now or timezone.now()
    spawned = len(recurring_tournaments_spawn(now=now))
    started = sum(tournament_start(tournament_id=pk) for pk in selectors.tournaments_due(now=now))
    expired = matches_expire_leases(now=now)
    replaced = matches_replace_failed()
    redispatched = matches_redispatch_stale(now=now)
    settled = sum(duplicate_set_settle(set_id=pk) for pk in selectors.duplicate_sets_to_settle())
    rated = ratings_apply_pending()
    advanced = sum(tournament_advance(tournament_id=pk) for pk in selectors.tournaments_running())
    return TickReport(spawned, started, expired, replaced, redispatched, settled, rated, advanced)


def matches_expire_leases(*, now: datetime) -> int:
    """Settle the running matches whose worker stopped renewing their lease.

    One whose log already ends with its result is finished from it; any other has failed
    and is replaced by ``matches_replace_failed``.
    """
    expired = TournamentMatch.objects.filter(
        current(),
        match__status=Match.Status.RUNNING,
        match__lease_expires_at__lt=now,
        tournament__status=Tournament.Status.RUNNING,
    ).values_list("id", "match_id", "match__claimed_by", "match__lease_expires_at")
    count = 0
    for link_id, match_id, worker, lease_end in expired:
        status = match_lease_expire(match_id=match_id, now=now)
        if status == Match.Status.FAILED:
            reason = f"its worker {worker} stopped renewing its lease, which ran out at {lease_end}"
            tournament_match_failure_note(link_id=link_id, reason=reason)
            match_failed_observe(match_id=match_id)
        count += status is not None
    return count


def matches_replace_failed() -> int:
    """Replace each failed match of a running tournament, up to the attempts allowed.

    A match that keeps failing (a poison job) stops being replaced after
    ``BAIZE_MATCH_ATTEMPTS`` attempts at the same seat arrangement, and waits for an
    organiser (the admin's re-run action, or cancelling the tournament).
    """
    failed = list(
        TournamentMatch.objects.filter(
            current(),
            match__status=Match.Status.FAILED,
            tournament__status=Tournament.Status.RUNNING,
        )
    )
    attempts = _attempts({link.duplicate_set_id for link in failed})
    replaced = 0
    for link in failed:
        if attempts[(link.duplicate_set_id, link.first_seat)] >= settings.BAIZE_MATCH_ATTEMPTS:
            continue
        replaced += match_replace(link=link, reason=link.failure or FAILED_ON_WORKER) is not None
    return replaced


def _attempts(set_ids: set[int]) -> dict[tuple[int, int], int]:
    rows = (
        TournamentMatch.objects.filter(duplicate_set_id__in=set_ids)
        .values_list("duplicate_set_id", "first_seat")
        .annotate(count=Count("id"))
    )
    return {(set_id, seat): count for set_id, seat, count in rows}


def matches_redispatch_stale(*, now: datetime) -> int:
    """Send again the pending matches sent long ago: their message may have died with a worker.

    A second delivery of a match that is in fact still queued does nothing (the claim is
    conditional), so resending costs one task at worst.
    """
    cutoff = now - timedelta(seconds=settings.BAIZE_MATCH_REDISPATCH_SECONDS)
    stale = TournamentMatch.objects.filter(
        Q(dispatched_at__lt=cutoff) | Q(dispatched_at__isnull=True, match__created_at__lt=cutoff),
        current(),
        match__status=Match.Status.PENDING,
        tournament__status=Tournament.Status.RUNNING,
    ).values_list("id", "match_id", "dispatched_at")
    return matches_resend(stale=list(stale), now=now)
