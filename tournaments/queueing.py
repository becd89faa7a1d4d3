"""The queue, as everyone may see it: what waits at each priority, what runs, which workers
are alive, what finished lately, and how long a piece of work can expect to wait.

**The work.** A worker task plays the matches of one pairing (``tournaments.series``), so
the queue is read as tasks: the pending matches of a pairing sent together share their
``dispatched_at`` (``tournament_matches_enqueue`` stamps a batch at once, and a running
task renews the stamp of the matches it still holds, the one it is about to claim
included), so a pairing's pending and running matches grouped by that stamp, and cut as
``match_series`` cuts them, are its tasks. A group holding a running match is a running
task; any other waits in the queue, at the priority its kind of work is sent at
(``base.queues``), in the queue its bots need.

**The expected times.** A match is expected to take what this game's matches took lately
(the last hour, apart for uploaded and built-in bots), plus the pause a worker process
takes between two matches. The workers alive (their heartbeats) are slots; a running task
keeps its slot for what it has left, and the waiting tasks go, best priority first and
oldest first, each to the slot that frees first among those that may take it (a task of
uploaded code only to a worker whose sandbox is ``full``): as Celery on Redis hands them
out (``base.queues``). Work sent later at a better priority can still come first; the
figures are read again at each look.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import median

from django.conf import settings
from django.db.models import Exists, OuterRef
from django.utils import timezone

from base.queues import DEFAULT_QUEUE, PRIORITY_STEPS, SANDBOXED_QUEUE
from matches.models import Match, MatchSeat
from monitoring.models import WorkerHeartbeat
from monitoring.selectors import workers_alive

from .formats import FORMATS, format_spec
from .models import Tournament, TournamentMatch, current

#: How far back finished matches tell how long a match takes.
HISTORY = timedelta(hours=1)
#: The most recent finished matches read for that.
HISTORY_MATCHES = 2000
#: A match's length when nothing of the kind was played in the last hour (seconds).
DEFAULT_MATCH_SECONDS = 5.0
#: A worker process's pause between two matches, when none was seen.
DEFAULT_PAUSE_SECONDS = 0.2
#: A pause longer than this between two matches of one process was idleness, not overhead.
LONGEST_PAUSE_SECONDS = 5.0
#: A running match is taken to have at least this share of its expected length left.
LEAST_LEFT = 0.1


# --- The model: pure, no database ----------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """A worker task: its matches left (the first may be running, ``elapsed`` seconds in),
    each of an expected length."""

    key: tuple
    tournament_id: int
    kind: str
    priority: int
    sandboxed: bool
    sent_at: float
    matches: tuple[float, ...]
    running: bool = False
    elapsed: float = 0.0

    @property
    def seconds_left(self) -> float:
        if not self.matches:
            return 0.0
        first = self.matches[0]
        if self.running:
            first = max(first - self.elapsed, first * LEAST_LEFT)
        return first + sum(self.matches[1:])


@dataclass(frozen=True)
class Slot:
    """A worker pool process; ``sandboxed``: it may take uploaded code."""

    sandboxed: bool


@dataclass
class Schedule:
    """When each task starts and ends, in seconds from now (None: no slot may take it)."""

    starts: dict[tuple, float | None] = field(default_factory=dict)
    ends: dict[tuple, float | None] = field(default_factory=dict)
    #: When each slot is next free, once every task given was placed.
    free_at: list[tuple[float, bool]] = field(default_factory=list)

    def wait(self, *, sandboxed: bool) -> float | None:
        """How long a task sent now, behind those placed, would wait for a slot."""
        times = [at for at, capable in self.free_at if capable or not sandboxed]
        return min(times) if times else None


def queue_order(tasks: Iterable[Task]) -> list[Task]:
    """Waiting tasks in the order workers take them: best priority, then oldest."""
    return sorted(tasks, key=lambda task: (task.priority, task.sent_at, task.key))


def schedule(slots: Sequence[Slot], running: Sequence[Task], waiting: Sequence[Task]) -> Schedule:
    """Place the running tasks on the slots (those of uploaded code on sandboxed slots, the
    others on built-in slots first), then the waiting ones in queue order, each on the
    eligible slot that frees first."""
    plan = Schedule()
    free_at: list[float | None] = [None] * len(slots)  # None: not yet taken by a running task
    for task in sorted(running, key=lambda task: not task.sandboxed):
        plan.starts[task.key], plan.ends[task.key] = 0.0, task.seconds_left
        eligible = [i for i, slot in enumerate(slots) if slot.sandboxed or not task.sandboxed]
        unused = sorted(
            (i for i in eligible if free_at[i] is None), key=lambda i: slots[i].sandboxed
        )
        if unused:
            free_at[unused[0]] = task.seconds_left
    times = [at or 0.0 for at in free_at]
    for task in queue_order(waiting):
        eligible = [i for i, slot in enumerate(slots) if slot.sandboxed or not task.sandboxed]
        if not eligible:
            plan.starts[task.key] = plan.ends[task.key] = None
            continue
        index = min(eligible, key=lambda i: (times[i], i))
        plan.starts[task.key] = times[index]
        times[index] += task.seconds_left
        plan.ends[task.key] = times[index]
    plan.free_at = [(at, slot.sandboxed) for at, slot in zip(times, slots, strict=True)]
    return plan


# --- Reading the queue from the database ---------------------------------------------------


@dataclass(frozen=True)
class MatchCosts:
    """Expected seconds of a worker process per match: its length, by game and by whether
    it runs uploaded code, plus the pause between two matches."""

    seconds: dict[tuple[str, bool], float]
    by_game: dict[str, float]
    overall: float
    pause: float

    def of(self, game: str, uploaded: bool) -> float:
        length = self.seconds.get((game, uploaded), self.by_game.get(game, self.overall))
        return length + self.pause


@dataclass(frozen=True)
class TournamentEta:
    """Where a tournament's work stands in the queue: its first waiting task's place in
    line (1 is next; None when none waits), the tasks ahead of it, its matches left, and
    the seconds until its last one is expected to end (None: no worker may play it)."""

    position: int | None
    tasks_ahead: int
    matches_left: int
    eta_seconds: float | None


@dataclass
class QueueSnapshot:
    now: datetime
    #: A broker is configured: workers play what is sent.
    plays: bool
    workers: list[WorkerHeartbeat]
    running: list[Task]
    waiting: list[Task]
    costs: MatchCosts
    finished_5_minutes: int
    finished_60_minutes: int
    plan: Schedule

    @property
    def slots(self) -> int:
        return sum(worker.concurrency for worker in self.workers)

    def expected_wait(self, *, priority: int, sandboxed: bool) -> float | None:
        """Seconds a task sent now at ``priority`` would wait for a slot; None: no slot
        may take it."""
        ahead = [task for task in self.waiting if task.priority <= priority]
        return schedule(_slots(self.workers), self.running, ahead).wait(sandboxed=sandboxed)

    def tournament_eta(self, tournament_id: int) -> TournamentEta:
        if not self.plays:
            return TournamentEta(None, 0, 0, None)
        mine = [t for t in (*self.running, *self.waiting) if t.tournament_id == tournament_id]
        ends = [self.plan.ends.get(task.key) for task in mine]
        order = queue_order(self.waiting)
        first = next(
            (i for i, task in enumerate(order) if task.tournament_id == tournament_id), None
        )
        return TournamentEta(
            position=None if first is None else first + 1,
            tasks_ahead=0 if first is None else first,
            matches_left=sum(len(task.matches) for task in mine),
            eta_seconds=None if None in ends else max(ends, default=0.0),
        )


def queue_snapshot(*, now: datetime | None = None) -> QueueSnapshot:
    """The queue as it stands now (a handful of queries)."""
    now = now or timezone.now()
    plays = not settings.CELERY_TASK_ALWAYS_EAGER
    workers = workers_alive(now=now) if plays else []
    costs = match_costs(now=now)
    running, waiting = _tasks(now, costs)
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    return QueueSnapshot(
        now=now,
        plays=plays,
        workers=workers,
        running=running,
        waiting=waiting,
        costs=costs,
        finished_5_minutes=finished.filter(finished_at__gte=now - timedelta(minutes=5)).count(),
        finished_60_minutes=finished.filter(finished_at__gte=now - timedelta(minutes=60)).count(),
        plan=schedule(_slots(workers), running, waiting),
    )


def _slots(workers: Sequence[WorkerHeartbeat]) -> list[Slot]:
    return [
        Slot(sandboxed=SANDBOXED_QUEUE in worker.queue_names)
        for worker in workers
        for _ in range(worker.concurrency)
    ]


def _uploaded() -> Exists:
    return Exists(MatchSeat.objects.filter(match_id=OuterRef("match_id"), version__builtin=""))


def match_costs(*, now: datetime) -> MatchCosts:
    """What the last hour's finished matches say a match costs a worker process."""
    rows = list(
        TournamentMatch.objects.filter(
            match__status=Match.Status.FINISHED,
            match__finished_at__gte=now - HISTORY,
            match__started_at__isnull=False,
        )
        .annotate(uploaded=_uploaded())
        .order_by("-match__finished_at")
        .values_list(
            "match__game",
            "uploaded",
            "match__started_at",
            "match__finished_at",
            "match__claimed_by",
        )[:HISTORY_MATCHES]
    )
    lengths: dict[tuple[str, bool], list[float]] = {}
    for game, uploaded, started, finished, _ in rows:
        lengths.setdefault((game, uploaded), []).append((finished - started).total_seconds())
    by_game: dict[str, list[float]] = {}
    for (game, _), values in lengths.items():
        by_game.setdefault(game, []).extend(values)
    every = [value for values in lengths.values() for value in values]
    return MatchCosts(
        seconds={key: _mean(values) for key, values in lengths.items()},
        by_game={game: _mean(values) for game, values in by_game.items()},
        overall=_mean(every) if every else DEFAULT_MATCH_SECONDS,
        pause=_pause([(claimed, started, finished) for *_, started, finished, claimed in rows]),
    )


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _pause(rows: Sequence[tuple[str, datetime, datetime]]) -> float:
    """The median pause of a worker process between the end of a match and the start of its
    next, among pauses short enough to be the work between two matches, not idleness."""
    by_process: dict[str, list[tuple[datetime, datetime]]] = {}
    for claimed, started, finished in rows:
        by_process.setdefault(claimed, []).append((started, finished))
    pauses = []
    for matches in by_process.values():
        matches.sort()
        for (_, ended), (began, _) in zip(matches, matches[1:], strict=False):
            gap = (began - ended).total_seconds()
            if 0 <= gap <= LONGEST_PAUSE_SECONDS:
                pauses.append(gap)
    return median(pauses) if pauses else DEFAULT_PAUSE_SECONDS


def _tasks(now: datetime, costs: MatchCosts) -> tuple[list[Task], list[Task]]:
    """The running and the waiting tasks of the running tournaments."""
    from .series import sets_in_tasks
    from .services.scheduling import match_priority

    rows = (
        TournamentMatch.objects.filter(
            current(),
            tournament__status=Tournament.Status.RUNNING,
            match__status__in=[Match.Status.PENDING, Match.Status.RUNNING],
        )
        .annotate(uploaded=_uploaded())
        .values_list(
            "match_id",
            "tournament_id",
            "tournament__format",
            "match__game",
            "match__status",
            "match__started_at",
            "match__created_at",
            "dispatched_at",
            "duplicate_set__pairing_id",
            "duplicate_set__number",
            "first_seat",
            "uploaded",
        )
    )
    groups: dict[tuple, list[tuple]] = {}
    for row in rows:
        groups.setdefault((row[8], row[7]), []).append(row)
    running, waiting = [], []
    for (pairing, stamp), members in groups.items():
        members.sort(key=lambda row: (row[9], row[10]))
        match_id, tournament_id, format, game, *_ = members[0]
        uploaded = any(row[11] for row in members)
        spec = FORMATS.get(format)
        kind = spec.kind if spec else format
        priority = match_priority(format, runs_uploaded_code=uploaded) if spec else 0
        sent = (stamp or members[0][6]).timestamp()
        cost = costs.of(game, uploaded)
        live = [row for row in members if row[4] == Match.Status.RUNNING]
        if live:
            ahead = [row for row in members if row[4] == Match.Status.PENDING]
            started = live[0][5] or now
            task = Task(
                key=(pairing, sent, "running"),
                tournament_id=tournament_id,
                kind=kind,
                priority=priority,
                sandboxed=uploaded,
                sent_at=sent,
                matches=tuple(cost for _ in range(len(live) + len(ahead))),
                running=True,
                elapsed=max((now - started).total_seconds(), 0.0),
            )
            running.append(task)
            continue
        by_set: dict[int, list[int]] = {}
        for row in members:
            by_set.setdefault(row[9], []).append(row[0])
        for number, chunk in enumerate(sets_in_tasks([by_set[n] for n in sorted(by_set)])):
            waiting.append(
                Task(
                    key=(pairing, sent, number),
                    tournament_id=tournament_id,
                    kind=kind,
                    priority=priority,
                    sandboxed=uploaded,
                    sent_at=sent,
                    matches=tuple(cost for _ in chunk),
                )
            )
    return running, waiting


@dataclass(frozen=True)
class WaitingWork:
    priority: int
    kind: str
    queue: str
    tasks: int
    matches: int


def waiting_work(snapshot: QueueSnapshot) -> list[WaitingWork]:
    """What waits, by priority, kind and queue, best priority first."""
    tasks: Counter[tuple[int, str, str]] = Counter()
    matches: Counter[tuple[int, str, str]] = Counter()
    for task in snapshot.waiting:
        key = (task.priority, task.kind, SANDBOXED_QUEUE if task.sandboxed else DEFAULT_QUEUE)
        tasks[key] += 1
        matches[key] += len(task.matches)
    return [WaitingWork(*key, tasks[key], matches[key]) for key in sorted(tasks)]


def running_by_kind(snapshot: QueueSnapshot) -> dict[str, int]:
    found: Counter[str] = Counter()
    for task in snapshot.running:
        found[task.kind] += 1
    return dict(found)


#: The priorities Baize sends at, and so those whose wait is shown.
def sent_priorities() -> list[int]:
    from .services.scheduling import match_priority

    used = {
        match_priority(name, runs_uploaded_code=uploaded)
        for name in FORMATS
        for uploaded in (False, True)
    }
    return sorted(used & set(PRIORITY_STEPS))


def kind_of(format: str) -> str:
    return format_spec(format).kind


def ceil_seconds(seconds: float | None) -> int | None:
    return None if seconds is None else math.ceil(seconds)


def matches_of_tournament(*, tournament: Tournament) -> tuple[str, int, bool]:
    """The game of ``tournament``'s matches, the priority they are sent at, and whether they
    need a sandboxed worker (an uploaded bot among its entrants)."""
    from .services.scheduling import match_priority

    uploaded = tournament.entrants.filter(version__builtin="").exists()
    return tournament.game, match_priority(tournament.format, runs_uploaded_code=uploaded), uploaded
