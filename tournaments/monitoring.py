"""What the tournaments tell the monitoring (``monitoring.metrics``): each match started,
finished, failed or replaced, by game and kind of tournament (``organised``, ``ladder``,
``challenge``, ``version_test``), how long it waited in the queue at its priority, how long
it played, its decisions and its forfeit's reason.

A worker task reads its matches' labels once, as it begins (``task_observed``): the game,
the kind, the priority it was sent at and when it was sent, read before the task renews
its matches' dispatch (``tournament_matches_held``). The receivers of ``matches.signals``
take them from there, or read them when no task of this process holds them (a match the
tick settles). A receiver never raises: a count is not worth a match.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from games.events import EventType, ResultReason
from matches.models import Match, MatchSeat
from matches.selectors import match_event_count, match_forfeits
from monitoring import metrics
from monitoring.logs import log_context_set

from .formats import format_spec
from .models import TournamentMatch

logger = logging.getLogger(__name__)

#: The kind of a match played outside any tournament (a test's, a benchmark's).
NO_KIND = "none"


@dataclass(frozen=True)
class MatchLabels:
    game: str
    kind: str
    priority: int | None
    dispatched_at: datetime | None


@dataclass
class _Task:
    labels: dict[int, MatchLabels]
    #: Matches this task started, with when (monotonic), and those it saw finish.
    started: dict[int, float] = field(default_factory=dict)
    finished: set[int] = field(default_factory=set)


_TASK: ContextVar[_Task | None] = ContextVar("baize_tournament_task", default=None)


def matches_labels(*, match_ids: Sequence[int]) -> dict[int, MatchLabels]:
    """Each match's labels, in two queries."""
    from .services.scheduling import match_priority  # it counts its replacements here

    rows = TournamentMatch.objects.filter(match_id__in=match_ids).values_list(
        "match_id", "match__game", "tournament__format", "dispatched_at"
    )
    uploaded = set(
        MatchSeat.objects.filter(match_id__in=match_ids, version__builtin="").values_list(
            "match_id", flat=True
        )
    )
    labels = {}
    for match_id, game, format, dispatched_at in rows:
        try:
            kind = format_spec(format).kind
            priority = match_priority(format, runs_uploaded_code=match_id in uploaded)
        except ValueError:  # a format no longer registered (a test's)
            kind, priority = NO_KIND, None
        labels[match_id] = MatchLabels(game, kind, priority, dispatched_at)
    return labels


def _labels(match_id: int) -> MatchLabels:
    task = _TASK.get()
    if task is not None and match_id in task.labels:
        return task.labels[match_id]
    found = matches_labels(match_ids=[match_id]).get(match_id)
    if found is None:
        game = Match.objects.filter(id=match_id).values_list("game", flat=True).first()
        found = MatchLabels(game or "", NO_KIND, None, None)
    return found


@contextmanager
def task_observed(*, match_ids: Sequence[int]) -> Iterator[None]:
    """A worker task playing ``match_ids``: its matches' labels read once; a match it began
    and left failed when the task stopped on an error is counted failed."""
    task = _Task(_read_labels(match_ids))
    token = _TASK.set(task)
    try:
        yield
    except BaseException:
        _count_failed(task)
        raise
    finally:
        _TASK.reset(token)
        log_context_set(match_id=None)


def _read_labels(match_ids: Sequence[int]) -> dict[int, MatchLabels]:
    try:
        return matches_labels(match_ids=match_ids)
    except Exception:
        logger.exception("metrics: the labels of matches %s could not be read", match_ids)
        return {}


def _count_failed(task: _Task) -> None:
    unfinished = [match_id for match_id in task.started if match_id not in task.finished]
    try:
        failed = Match.objects.filter(id__in=unfinished, status=Match.Status.FAILED)
        for match_id in failed.values_list("id", flat=True):
            match_failed_observe(match_id=match_id)
    except Exception:
        logger.exception("metrics: the failed matches of a task could not be read")


def match_started_observe(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    """``matches.signals.match_started``: counted, with its wait since it was sent."""
    log_context_set(match_id=match_id)
    try:
        labels = _labels(match_id)
        metrics.matches_started.labels(labels.game, labels.kind).inc()
        task = _TASK.get()
        if task is not None:
            task.started[match_id] = time.monotonic()
        if labels.dispatched_at is not None and labels.priority is not None:
            waited = (timezone.now() - labels.dispatched_at).total_seconds()
            metrics.match_queue_wait.labels(str(labels.priority)).observe(max(waited, 0.0))
    except Exception:
        logger.exception("metrics: match %s's start not counted", match_id)


def match_finished_observe(sender: Any, *, match_id: int, reason: str, **kwargs: Any) -> None:
    """``matches.signals.match_finished``: counted, with its length, decisions and forfeit."""
    try:
        labels = _labels(match_id)
        task = _TASK.get()
        if task is not None:
            task.finished.add(match_id)
        metrics.matches_finished.labels(labels.game, labels.kind).inc()
        started, finished = Match.objects.values_list("started_at", "finished_at").get(id=match_id)
        if started is not None and finished is not None:
            seconds = max((finished - started).total_seconds(), 0.0)
            metrics.match_duration.labels(labels.game, labels.kind).observe(seconds)
        metrics.match_decisions.labels(labels.game).observe(_decisions(match_id))
        if reason == ResultReason.FORFEIT:
            forfeit = _forfeit_reason(match_id)
            metrics.match_forfeits.labels(labels.game, labels.kind, forfeit).inc()
    except Exception:
        logger.exception("metrics: match %s's result not counted", match_id)


def _decisions(match_id: int) -> int:
    return match_event_count(match_id=match_id, type=EventType.DECISION)


def _forfeit_reason(match_id: int) -> str:
    forfeit = match_forfeits(match_ids=[match_id]).get(match_id)
    if not isinstance(forfeit, dict):
        return "unknown"
    return str(forfeit.get("reason", "unknown"))


def match_failed_observe(*, match_id: int) -> None:
    """A running match was marked failed (its worker's error, or its lease ran out)."""
    try:
        labels = _labels(match_id)
        metrics.matches_failed.labels(labels.game, labels.kind).inc()
    except Exception:
        logger.exception("metrics: match %s's failure not counted", match_id)


def match_replaced_observe(*, match_id: int) -> None:
    """A failed match was replaced by a fresh one."""
    try:
        labels = _labels(match_id)
        metrics.matches_replaced.labels(labels.game, labels.kind).inc()
    except Exception:
        logger.exception("metrics: match %s's replacement not counted", match_id)
