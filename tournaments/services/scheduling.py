"""What a running tournament plays next: pairings, duplicate sets, matches, and their repair.

``tournament_advance`` is the one place a running tournament moves on: it reads a snapshot
(entrants, pairings, set results), asks the pure format code what follows (decided
pairings, an extra tie-break set, the next Swiss round, the bracket pairings now ready, or the
end), and writes it under a conditional update of ``Tournament.progress``. Whoever calls it
(the worker that finished a set, the periodic tick) gets the same answer, and of two
callers at once only one writes.

Matches whose worker died are repaired, never rewritten: the event log is append-only, so
the partial log of such a match stays as it is, the match is marked failed (with the reason
on its ``TournamentMatch``), and a fresh match with the same seed and the same seats takes
its place in the set. Every match is thus logged exactly once, and a set's result is read
from its two current matches only.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from base.queues import AUTHOR_PRIORITY, FILLER_PRIORITY, FIRST_PRIORITY, queue_for
from bots.models import BotVersion
from matches.models import Match
from matches.selectors import match_runs_uploaded_code
from matches.services import (
    match_create,
    match_replacement_create,
    match_seats_create,
    matches_fail_pending,
)

from .. import selectors
from ..duplicate import PairingWinner, SetResult, pairing_decision, set_seed
from ..formats import FormatSpec, format_spec
from ..models import (
    DuplicateSet,
    Entrant,
    Pairing,
    Tournament,
    TournamentMatch,
    VersionTest,
    current,
)
from ..monitoring import match_replaced_observe
from ..planning import NO_BRACKET, EntrantView, NewPairing, PairingView, Plan, TournamentState
from ..ratings import selectors as rating_selectors
from ..ratings.maths import PRIOR
from ..ratings.services import rating_set_apply
from ..series import match_series
from ..sprt import SprtState

#: Times ``tournament_advance`` re-reads and retries after losing a race to another caller.
ADVANCE_ATTEMPTS = 5


def tournament_matches_enqueue(
    *, match_ids: Sequence[int], on_sent: Callable[[int], None] | None = None
) -> None:
    """Send one task per run of whole sets (``tournaments.series``; run at once, in this
    process, when no broker is configured)."""
    TournamentMatch.objects.filter(match_id__in=match_ids).update(dispatched_at=timezone.now())
    _tasks_send(match_ids=match_ids, on_sent=on_sent)


def tournament_matches_held(*, match_ids: Sequence[int]) -> None:
    """The pending ``match_ids`` are in the hands of a live task: their dispatch is renewed,
    so the tick's resend (``BAIZE_MATCH_REDISPATCH_SECONDS``) leaves them to it."""
    TournamentMatch.objects.filter(
        match_id__in=match_ids, match__status=Match.Status.PENDING
    ).update(dispatched_at=timezone.now())


def _tasks_send(*, match_ids: Sequence[int], on_sent: Callable[[int], None] | None = None) -> None:
    for run in match_series(match_ids=match_ids):
        tournament_run_send(match_ids=run)
        for match_id in run if on_sent is not None else ():
            on_sent(match_id)


def tournament_run_send(*, match_ids: Sequence[int]) -> None:
    """One task for a run of matches (``tournaments.series``): a series' task, or a lone
    match's, on the queue its bots need and at the priority of its kind of work
    (``base.queues``; the run's matches are alike: one tournament, one pair of bots)."""
    from ..tasks import tournament_match_play, tournament_series_play  # they import this

    format = TournamentMatch.objects.values_list("tournament__format", flat=True).get(
        match_id=match_ids[0]
    )
    uploaded = match_runs_uploaded_code(match_id=match_ids[0])
    task, args = (
        (tournament_match_play, (match_ids[0],))
        if len(match_ids) == 1
        else (tournament_series_play, (list(match_ids),))
    )
    task.apply_async(
        args,
        queue=queue_for(runs_uploaded_code=uploaded),
        priority=match_priority(format, runs_uploaded_code=uploaded),
    )


def match_priority(tournament_format: str, *, runs_uploaded_code: bool) -> int:
    """An organised tournament's match goes first; a filler format's (the ladder's) between
    built-in bots last, behind everything an author waits for (``base.queues``)."""
    spec = format_spec(tournament_format)
    if spec.organised:
        return FIRST_PRIORITY
    if spec.fills_idle_workers and not runs_uploaded_code:
        return FILLER_PRIORITY
    return AUTHOR_PRIORITY


def ladder_pairings_add(
    *, tournament_id: int, pairs: Sequence[tuple[int, int]], sets: Sequence[int] | None = None
) -> list[int]:
    """Pairings of ladder entrants ``(first, second)`` of ``sets`` sets each (one by
    default), made in the caller's transaction; the match ids to send once it commits."""
    snapshot = _snapshot(tournament_id)
    if snapshot is None:
        return []
    # A ladder pairing's round is its number (``l<round>``); the snapshot holds only the
    # pairings still playing, and the last one made is the newest.
    newest = snapshot.tournament.pairings.order_by("-id").values_list("round", flat=True)
    number = newest.first() or 0
    counts = sets if sets is not None else [1] * len(pairs)
    new = [
        NewPairing(f"l{number + index}", NO_BRACKET, number + index, 1, a, b, sets=count)
        for index, ((a, b), count) in enumerate(zip(pairs, counts, strict=True), start=1)
    ]
    return _apply(snapshot, Plan(new_pairings=new))


def tournament_first_round(*, tournament: Tournament, entrants: list[Entrant]) -> list[int]:
    """Seed the entrants and create the first pairings; inside the start's transaction."""
    seeded = _seed_entrants(tournament, entrants)
    snapshot = _Snapshot(tournament, seeded, [])
    match_ids = _apply(snapshot, _plan(snapshot))
    Tournament.objects.filter(id=tournament.pk).update(progress=F("progress") + 1)
    return match_ids


def _seed_entrants(tournament: Tournament, entrants: list[Entrant]) -> list[Entrant]:
    """Seed 1 is the best conservative rating (unrated bots count as new); then entry order."""
    skills = rating_selectors.rating_skills(
        game_id=tournament.game, version_ids=[entrant.version_id for entrant in entrants]
    )
    ratings = {version: skill.conservative for version, skill in skills.items()}
    seeded = sorted(
        entrants,
        key=lambda e: (-ratings.get(e.version_id, PRIOR.conservative), e.position),
    )
    for bracket_position, entrant in enumerate(seeded, start=1):
        entrant.bracket_position = bracket_position
        entrant.rating_at_start = ratings.get(entrant.version_id)
    Entrant.objects.bulk_update(seeded, ["bracket_position", "rating_at_start"])
    return seeded


def tournament_advance(*, tournament_id: int) -> bool:
    """Record decided pairings, create what is now ready, finish when done; True if it wrote."""
    for _ in range(ADVANCE_ATTEMPTS):
        snapshot = _snapshot(tournament_id)
        if snapshot is None:
            return False
        plan = _plan(snapshot)
        if plan.empty:
            return False
        changes: dict = {"progress": F("progress") + 1}
        if plan.finish:
            changes.update(status=Tournament.Status.FINISHED, finished_at=timezone.now())
        with transaction.atomic():
            # Conditional update: two workers finishing the last sets of a round at once
            # both plan the next one; only the one that moves ``progress`` on writes it.
            moved = Tournament.objects.filter(
                id=tournament_id,
                status=Tournament.Status.RUNNING,
                progress=snapshot.tournament.progress,
            ).update(**changes)
            if moved != 1:
                continue
            match_ids = _apply(snapshot, plan)
            transaction.on_commit(
                functools.partial(tournament_matches_enqueue, match_ids=match_ids)
            )
        return True
    return False


@dataclass
class _Snapshot:
    tournament: Tournament
    #: In seed order.
    entrants: list[Entrant]
    pairings: list[Pairing]

    @functools.cached_property
    def entrant(self) -> dict[int, Entrant]:
        return {entrant.pk: entrant for entrant in self.entrants}


def _snapshot(tournament_id: int) -> _Snapshot | None:
    running = Tournament.objects.filter(id=tournament_id, status=Tournament.Status.RUNNING)
    tournament = running.select_related("version_test").first()
    if tournament is None:
        return None
    entrants = list(
        tournament.entrants.select_related("version").order_by("bracket_position", "position")
    )
    pairings = tournament.pairings.prefetch_related("sets")
    if not format_spec(tournament.format).plans_from_decided_pairings:
        pairings = pairings.filter(status=Pairing.Status.PLAYING)
    return _Snapshot(tournament, entrants, list(pairings))


def _plan(snapshot: _Snapshot) -> Plan:
    """Decide what the set results decide, then ask the format's planner what follows."""
    plan = Plan()
    spec = format_spec(snapshot.tournament.format)
    views = tuple(_decide(snapshot, pairing, plan, spec) for pairing in snapshot.pairings)
    spec.planner(_state(snapshot, views), plan)
    return plan


def _state(snapshot: _Snapshot, views: tuple[PairingView, ...]) -> TournamentState:
    tournament = snapshot.tournament
    test = getattr(tournament, "version_test", None)
    return TournamentState(
        entrants=tuple(
            EntrantView(e.pk, e.bracket_position, e.position) for e in snapshot.entrants
        ),
        pairings=views,
        rounds=tournament.rounds,
        sets_per_pair=tournament.sets_per_pair,
        pairing_system=tournament.pairing_system,
        sprt=test.parameters if test is not None else None,
    )


def _decide(snapshot: _Snapshot, pairing: Pairing, plan: Plan, spec: FormatSpec) -> PairingView:
    sets = list(pairing.sets.all())
    results = tuple(_set_result(s) for s in sets if s.status == DuplicateSet.Status.FINISHED)
    finished = pairing.status == Pairing.Status.FINISHED
    winner = pairing.winner_id
    if not finished and not spec.sequential and len(results) == len(sets):
        entrants = snapshot.entrant
        elimination = spec.bracket is not None
        decision = pairing_decision(
            results,
            planned=snapshot.tournament.sets_per_pair,
            elimination=elimination,
            # Only a bracket reads seeds (the ladder's entrants have none).
            first_is_better_seed=elimination
            and entrants[pairing.first_id].bracket_position
            < entrants[pairing.second_id].bracket_position,
        )
        if decision.another_set:
            plan.extra_sets.append(pairing.key)
        elif decision.finished:
            finished = True
            winner = {
                PairingWinner.FIRST: pairing.first_id,
                PairingWinner.SECOND: pairing.second_id,
                PairingWinner.NONE: None,
            }[decision.winner]
            plan.decided[pairing.key] = winner
    return PairingView(
        pairing.key,
        pairing.round,
        pairing.first_id,
        pairing.second_id,
        finished,
        winner,
        results,
        len(sets),
    )


def _set_result(duplicate_set: DuplicateSet) -> SetResult:
    return SetResult(
        duplicate_set.first_wins,
        duplicate_set.second_wins,
        duplicate_set.first_points,
        duplicate_set.second_points,
    )


def _apply(snapshot: _Snapshot, plan: Plan) -> list[int]:
    """Write ``plan``; the ids of the matches it created, to be sent once committed."""
    now = timezone.now()
    by_key = {pairing.key: pairing for pairing in snapshot.pairings}
    for key, winner_id in plan.decided.items():
        Pairing.objects.filter(id=by_key[key].pk, status=Pairing.Status.PLAYING).update(
            status=Pairing.Status.FINISHED, winner_id=winner_id, finished_at=now
        )
    if plan.version_test is not None:
        _version_test_record(snapshot.tournament, plan.version_test)
    match_ids = []
    added: Counter[str] = Counter()
    for key in plan.extra_sets:
        pairing = by_key[key]
        added[key] += 1
        match_ids += _set_create(snapshot, pairing, number=len(pairing.sets.all()) + added[key])
    for new in plan.new_pairings:
        pairing = Pairing.objects.create(
            tournament=snapshot.tournament,
            key=new.key,
            bracket=new.bracket,
            round=new.round,
            table=new.table,
            first_id=new.first,
            second_id=new.second,
            **(
                {"status": Pairing.Status.FINISHED, "finished_at": now}
                if new.second is None
                else {}
            ),
        )
        if new.second is not None:
            sets = new.sets if new.sets is not None else snapshot.tournament.sets_per_pair
            for number in range(1, sets + 1):
                match_ids += _set_create(snapshot, pairing, number=number)
    paired = {side for new in plan.new_pairings for side in (new.first, new.second)}
    Entrant.objects.filter(pk__in=paired - {None}).update(last_paired_at=now)
    return match_ids


def _version_test_record(tournament: Tournament, state: SprtState) -> None:
    """The verdict and its numbers; the sets still in flight are not played (a match a
    worker is playing right now ends, but no longer counts)."""
    VersionTest.objects.filter(tournament=tournament).update(
        verdict=state.verdict,
        wins=state.wins,
        draws=state.draws,
        losses=state.losses,
        llr=state.llr,
    )
    pending_matches_drop(
        tournament=tournament, reason="the version test stopped before this match was played"
    )


def pending_matches_drop(*, tournament: Tournament, reason: str) -> None:
    """Fail the stopping ``tournament``'s matches still pending, with ``reason``; their sets
    will never finish, so they are marked not played. A match a worker claims at this moment
    is played and kept."""
    pending = Match.objects.filter(
        tournament_match__tournament=tournament, status=Match.Status.PENDING
    ).values_list("id", flat=True)
    dropped = matches_fail_pending(match_ids=list(pending))
    TournamentMatch.objects.filter(match_id__in=dropped).update(failure=reason)
    DuplicateSet.objects.filter(
        matches__match_id__in=dropped, status=DuplicateSet.Status.PLAYING
    ).update(status=DuplicateSet.Status.NOT_PLAYED)


def _set_create(snapshot: _Snapshot, pairing: Pairing, *, number: int) -> list[int]:
    """A duplicate set: two matches on the set's seed, the first entrant in seat 0 then 1."""
    tournament = snapshot.tournament
    seed = set_seed(tournament.secret, f"{pairing.key}/{number}")
    duplicate_set = DuplicateSet.objects.create(pairing=pairing, number=number, seed=seed)
    first = snapshot.entrant[pairing.first_id].version
    second = snapshot.entrant[pairing.second_id].version
    match_ids = []
    for first_seat, seats in ((0, (first, second)), (1, (second, first))):
        match_ids.append(_match_create(tournament, duplicate_set, first_seat, seats))
    return match_ids


def _match_create(
    tournament: Tournament,
    duplicate_set: DuplicateSet,
    first_seat: int,
    seats: Sequence[BotVersion],
) -> int:
    match = match_create(
        game_id=tournament.game, seed=duplicate_set.seed, options=tournament.options
    )
    match_seats_create(match=match, versions=seats)
    TournamentMatch.objects.create(
        tournament=tournament, duplicate_set=duplicate_set, match=match, first_seat=first_seat
    )
    return match.pk


def tournament_match_settle(*, match_id: int) -> None:
    """After a match ends: settle its set if both matches are done, and advance if that
    settled it. A set not over decides nothing, so the first match of a set does not
    advance; an advance lost to a race is made up by the tick, which advances every running
    tournament."""
    link = TournamentMatch.objects.get(match_id=match_id)
    if link.replaced_at is None and not duplicate_set_settle(set_id=link.duplicate_set_id):
        return
    tournament_advance(tournament_id=link.tournament_id)


def duplicate_set_settle(*, set_id: int) -> bool:
    """Record a set's result once both its current matches finished, and rate it."""
    statuses = list(
        TournamentMatch.objects.filter(current(), duplicate_set_id=set_id).values_list(
            "match__status", flat=True
        )
    )
    if len(statuses) != 2 or any(status != Match.Status.FINISHED for status in statuses):
        return False
    result = selectors.set_results_from_logs(set_ids=[set_id])[set_id]
    now = timezone.now()
    with transaction.atomic():
        # Conditional update: both matches of a set can finish at once on two workers; both
        # see the set complete, one records it, and counts it to its two entrants.
        settled = DuplicateSet.objects.filter(id=set_id, status=DuplicateSet.Status.PLAYING).update(
            status=DuplicateSet.Status.FINISHED,
            outcome=result.outcome,
            first_wins=result.first_wins,
            second_wins=result.second_wins,
            first_points=result.first_points,
            second_points=result.second_points,
            finished_at=now,
        )
        if settled:
            pairing = Pairing.objects.filter(sets=set_id)
            sides = Q(pk__in=pairing.values("first_id")) | Q(pk__in=pairing.values("second_id"))
            Entrant.objects.filter(sides).update(
                sets_finished=F("sets_finished") + 1, last_set_finished_at=now
            )
    if settled:
        rating_set_apply(set_id=set_id)
    return settled == 1


def match_replace(*, link: TournamentMatch, reason: str) -> TournamentMatch | None:
    """Put a fresh match (same seed, same seats) in the place of a failed one; sent on commit.

    The failed match and its partial log stay as they are, with ``reason`` on its link.
    None if another caller replaced it first.
    """
    old = Match.objects.get(id=link.match_id)
    with transaction.atomic():
        # Conditional update: the tick and an organiser's re-run may replace one match at
        # once; only one fresh match takes its place.
        replaced = TournamentMatch.objects.filter(current(), id=link.pk).update(
            replaced_at=timezone.now(), failure=reason
        )
        if replaced != 1:
            return None
        fresh = match_replacement_create(match=old)
        TournamentMatch.objects.create(
            tournament_id=link.tournament_id,
            duplicate_set_id=link.duplicate_set_id,
            match=fresh,
            first_seat=link.first_seat,
        )
        # Its twin, if still pending, goes along: one task plays both seatings of the set.
        twins = TournamentMatch.objects.filter(
            current(),
            duplicate_set_id=link.duplicate_set_id,
            match__status=Match.Status.PENDING,
        ).values_list("match_id", flat=True)
        resend = [fresh.pk, *twins]
        transaction.on_commit(functools.partial(tournament_matches_enqueue, match_ids=resend))
    match_replaced_observe(match_id=old.pk)
    return TournamentMatch.objects.get(match_id=fresh.pk)


def tournament_match_failure_note(*, link_id: int, reason: str) -> None:
    """Why a tournament's match failed, on its link (the match row says only that it did)."""
    TournamentMatch.objects.filter(id=link_id).update(failure=reason)


def matches_resend(*, stale: Sequence[tuple[int, int, datetime | None]], now: datetime) -> int:
    """Send again the pending matches ``(link id, match id, dispatched_at)``, those no other
    caller resent since; sent as first sent, whole sets in a task (``tournaments.series``),
    so a set's twins go to one worker again. The number of matches sent."""
    resent = []
    for link_id, match_id, dispatched_at in stale:
        # Conditional update: of two ticks at once, one sends the match again.
        if TournamentMatch.objects.filter(id=link_id, dispatched_at=dispatched_at).update(
            dispatched_at=now
        ):
            resent.append(match_id)
    _tasks_send(match_ids=resent)
    return len(resent)
