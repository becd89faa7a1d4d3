"""What a running tournament plays next: pairings, duplicate sets, matches, and their repair.

``tournament_advance`` is the one place a running tournament moves on: it reads a snapshot
(entrants, pairings, set results), asks the pure format code what follows (decided
pairings, an extra tie-break set, the next Swiss round, the bracket games now ready, or the
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
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from bots.models import BotVersion
from bots.queues import AUTHOR_PRIORITY, FILLER_PRIORITY, FIRST_PRIORITY, queue_for
from matches.models import Match
from matches.selectors import match_runs_uploaded_code
from matches.services import (
    match_create,
    match_replacement_create,
    match_seats_create,
    matches_fail_pending,
)

from . import selectors
from .brackets import Side, bracket_progress, double_elimination, single_elimination
from .duplicate import PairingWinner, SetOutcome, SetResult, pairing_decision, set_seed
from .formats import Format, round_robin_rounds
from .models import (
    DuplicateSet,
    Entrant,
    Pairing,
    Tournament,
    TournamentMatch,
    VersionTest,
    current,
)
from .rating_services import rating_set_apply
from .ratings import PRIOR
from .series import match_series
from .sprt import SprtState, Verdict, sprt_state
from .swiss import PairingSystem, swiss_round

#: Sets a version test keeps in flight: enough to keep two worker slots busy, few enough
#: that the test stops soon after it decides.
VERSION_TEST_SETS_IN_FLIGHT = 2
#: Times ``tournament_advance`` re-reads and retries after losing a race to another caller.
ADVANCE_ATTEMPTS = 5


def tournament_matches_enqueue(
    *, match_ids: Sequence[int], on_sent: Callable[[int], None] | None = None
) -> None:
    """Send one task per series of matches (``tournaments.series``; run at once, in this
    process, when no broker is configured)."""
    TournamentMatch.objects.filter(match_id__in=match_ids).update(dispatched_at=timezone.now())
    for series in match_series(match_ids=match_ids):
        if len(series) == 1:
            tournament_match_send(match_id=series[0])
        else:
            tournament_series_send(match_ids=series)
        for match_id in series if on_sent is not None else ():
            on_sent(match_id)


def tournament_series_send(*, match_ids: Sequence[int]) -> None:
    """A series' task, on the queue and at the priority of its matches (all alike: the same
    tournament and bots)."""
    from .tasks import tournament_series_play  # the tasks module imports this one

    format = TournamentMatch.objects.values_list("tournament__format", flat=True).get(
        match_id=match_ids[0]
    )
    uploaded = match_runs_uploaded_code(match_id=match_ids[0])
    tournament_series_play.apply_async(
        (list(match_ids),),
        queue=queue_for(runs_uploaded_code=uploaded),
        priority=match_priority(Format(format), runs_uploaded_code=uploaded),
    )


def tournament_match_send(*, match_id: int) -> None:
    """One match's task, on the queue its bots need and at the priority of its kind of work
    (``bots.queues``)."""
    from .tasks import tournament_match_play  # the tasks module imports this one

    format = TournamentMatch.objects.values_list("tournament__format", flat=True).get(
        match_id=match_id
    )
    uploaded = match_runs_uploaded_code(match_id=match_id)
    tournament_match_play.apply_async(
        (match_id,),
        queue=queue_for(runs_uploaded_code=uploaded),
        priority=match_priority(Format(format), runs_uploaded_code=uploaded),
    )


def match_priority(tournament_format: Format, *, runs_uploaded_code: bool) -> int:
    """An organised tournament's match goes first; the ladder's between built-in bots last,
    behind everything an author waits for (``bots.queues``)."""
    if tournament_format.is_organised:
        return FIRST_PRIORITY
    if tournament_format == Format.LADDER and not runs_uploaded_code:
        return FILLER_PRIORITY
    return AUTHOR_PRIORITY


def ladder_pairings_add(*, tournament_id: int, pairs: Sequence[tuple[int, int]]) -> list[int]:
    """One-set pairings of ladder entrants ``(first, second)``, made in the caller's
    transaction; the match ids to send once it commits."""
    snapshot = _snapshot(tournament_id)
    if snapshot is None:
        return []
    number = len(snapshot.pairings)
    new = [
        _NewPairing(f"l{number + index}", Pairing.Bracket.ROUNDS, number + index, 1, a, b)
        for index, (a, b) in enumerate(pairs, start=1)
    ]
    return _apply(snapshot, _Plan(new_pairings=new))


def tournament_first_round(*, tournament: Tournament, entrants: list[Entrant]) -> list[int]:
    """Seed the entrants and create the first pairings; inside the start's transaction."""
    seeded = _seed_entrants(tournament, entrants)
    snapshot = _Snapshot(tournament, seeded, [])
    match_ids = _apply(snapshot, _plan(snapshot))
    Tournament.objects.filter(id=tournament.pk).update(progress=F("progress") + 1)
    return match_ids


def _seed_entrants(tournament: Tournament, entrants: list[Entrant]) -> list[Entrant]:
    """Seed 1 is the best conservative rating (unrated bots count as new); then entry order."""
    ratings = selectors.conservative_ratings(
        game_id=tournament.game, version_ids=[entrant.version_id for entrant in entrants]
    )
    seeded = sorted(
        entrants,
        key=lambda e: (-ratings.get(e.version_id, PRIOR.conservative), e.position),
    )
    for seed, entrant in enumerate(seeded, start=1):
        entrant.seed = seed
        entrant.rating_at_start = ratings.get(entrant.version_id)
    Entrant.objects.bulk_update(seeded, ["seed", "rating_at_start"])
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
    tournament = Tournament.objects.filter(
        id=tournament_id, status=Tournament.Status.RUNNING
    ).first()
    if tournament is None:
        return None
    entrants = list(tournament.entrants.select_related("version").order_by("seed", "position"))
    pairings = list(tournament.pairings.prefetch_related("sets"))
    return _Snapshot(tournament, entrants, pairings)


@dataclass(frozen=True)
class _NewPairing:
    key: str
    bracket: str
    round: int
    table: int
    first: int
    second: int | None


@dataclass
class _Plan:
    #: Pairing id -> the entrant going through (None in round robins and Swiss).
    decided: dict[int, int | None] = field(default_factory=dict)
    extra_sets: list[Pairing] = field(default_factory=list)
    new_pairings: list[_NewPairing] = field(default_factory=list)
    finish: bool = False
    #: The sequential test's final state, when this advance stops it.
    version_test: SprtState | None = None

    @property
    def empty(self) -> bool:
        return not (self.decided or self.extra_sets or self.new_pairings or self.finish)


@dataclass(frozen=True)
class _PairingView:
    """A pairing as the format code sees it, with this advance's decisions applied."""

    key: str
    round: int
    first: int
    second: int | None
    finished: bool
    winner: int | None
    results: tuple[SetResult, ...]


def _plan(snapshot: _Snapshot) -> _Plan:
    plan = _Plan()
    views = [_decide(snapshot, pairing, plan) for pairing in snapshot.pairings]
    tournament_format = Format(snapshot.tournament.format)
    if tournament_format is Format.LADDER:
        pass  # the ladder's pairings come from its matchmaker, and it never finishes
    elif tournament_format is Format.VERSION_TEST:
        _plan_version_test(snapshot, views, plan)
    elif tournament_format.is_round_robin or tournament_format is Format.CHALLENGE:
        _plan_round_robin(snapshot, views, plan, tournament_format)
    elif tournament_format is Format.SWISS:
        _plan_swiss(snapshot, views, plan)
    else:
        _plan_elimination(snapshot, views, plan, tournament_format)
    return plan


def _decide(snapshot: _Snapshot, pairing: Pairing, plan: _Plan) -> _PairingView:
    sets = list(pairing.sets.all())
    results = tuple(_set_result(s) for s in sets if s.status == DuplicateSet.Status.FINISHED)
    finished = pairing.status == Pairing.Status.FINISHED
    winner = pairing.winner_id
    sequential = snapshot.tournament.format == Format.VERSION_TEST  # it decides by itself
    if not finished and not sequential and len(results) == len(sets):
        entrants = snapshot.entrant
        elimination = Format(snapshot.tournament.format).is_elimination
        decision = pairing_decision(
            results,
            planned=snapshot.tournament.sets_per_pair,
            elimination=elimination,
            # Only a bracket reads seeds (the ladder's entrants have none).
            first_is_better_seed=elimination
            and entrants[pairing.first_id].seed < entrants[pairing.second_id].seed,
        )
        if decision.another_set:
            plan.extra_sets.append(pairing)
        elif decision.finished:
            finished = True
            winner = {
                PairingWinner.FIRST: pairing.first_id,
                PairingWinner.SECOND: pairing.second_id,
                PairingWinner.NONE: None,
            }[decision.winner]
            plan.decided[pairing.pk] = winner
    return _PairingView(
        pairing.key, pairing.round, pairing.first_id, pairing.second_id, finished, winner, results
    )


def _set_result(duplicate_set: DuplicateSet) -> SetResult:
    return SetResult(
        duplicate_set.first_wins,
        duplicate_set.second_wins,
        duplicate_set.first_points,
        duplicate_set.second_points,
    )


def _plan_round_robin(
    snapshot: _Snapshot, views: list[_PairingView], plan: _Plan, tournament_format: Format
) -> None:
    if views:
        plan.finish = all(view.finished for view in views)
        return
    cycles = 2 if tournament_format is Format.DOUBLE_ROUND_ROBIN else 1
    ids = [entrant.pk for entrant in snapshot.entrants]
    for number, pairs in enumerate(round_robin_rounds(ids, cycles=cycles), start=1):
        plan.new_pairings += [
            _NewPairing(f"r{number}t{table}", Pairing.Bracket.ROUNDS, number, table, a, b)
            for table, (a, b) in enumerate(pairs, start=1)
        ]


def _plan_swiss(snapshot: _Snapshot, views: list[_PairingView], plan: _Plan) -> None:
    current = max((view.round for view in views), default=0)
    if not all(view.finished for view in views if view.round == current):
        return
    if current >= snapshot.tournament.rounds:
        plan.finish = True
        return
    scores: dict[int, float] = defaultdict(float)
    for view in views:
        if view.second is None:  # a bye is a pairing won, as the standings count it
            scores[view.first] += float(snapshot.tournament.sets_per_pair)
        for result in view.results:
            first_points, second_points = result.set_points()
            scores[view.first] += first_points
            scores[view.second] += second_points
    ranking = sorted(snapshot.entrants, key=lambda e: (-scores[e.pk], e.seed))
    paired = swiss_round(
        [entrant.pk for entrant in ranking],
        scores={entrant.pk: scores[entrant.pk] for entrant in ranking},
        played={frozenset((v.first, v.second)) for v in views if v.second is not None},
        had_bye={view.first for view in views if view.second is None},
        system=PairingSystem(snapshot.tournament.pairing_system),
    )
    number = current + 1
    plan.new_pairings += [
        _NewPairing(f"r{number}t{table}", Pairing.Bracket.ROUNDS, number, table, a, b)
        for table, (a, b) in enumerate(paired.pairs, start=1)
    ]
    if paired.bye is not None:
        table = len(paired.pairs) + 1
        plan.new_pairings.append(
            _NewPairing(f"r{number}bye", Pairing.Bracket.ROUNDS, number, table, paired.bye, None)
        )


def _plan_version_test(snapshot: _Snapshot, views: list[_PairingView], plan: _Plan) -> None:
    """A pairing of the candidate (first) with each opponent: the baseline, or each version
    of a pool. Sets are added, at least ``VERSION_TEST_SETS_IN_FLIGHT`` at a time and at
    most one a pairing per advance, to the opponents that have played least, until the
    sequential test, reading every set of the candidate as one, decides or reaches its cap."""
    if not views:
        candidate, *opponents = (entrant.pk for entrant in sorted_by_position(snapshot.entrants))
        for table, opponent in enumerate(opponents, start=1):
            key = "test" if len(opponents) == 1 else f"test-{table}"
            plan.new_pairings.append(
                _NewPairing(key, Pairing.Bracket.ROUNDS, 1, table, candidate, opponent)
            )
        return
    test = snapshot.tournament.version_test
    results = [result for view in views for result in view.results]
    state = sprt_state(*_counts(results), test.parameters)
    if state.verdict is not Verdict.PENDING:
        plan.decided.update({pairing.pk: None for pairing in snapshot.pairings})
        plan.finish = True
        plan.version_test = state
        return
    created = {pairing.pk: len(pairing.sets.all()) for pairing in snapshot.pairings}
    room = min(
        max(VERSION_TEST_SETS_IN_FLIGHT, len(views)) - (sum(created.values()) - len(results)),
        test.max_sets - sum(created.values()),
    )
    least_played = sorted(snapshot.pairings, key=lambda pairing: created[pairing.pk])
    plan.extra_sets += least_played[: max(room, 0)]


def sorted_by_position(entrants: Sequence[Entrant]) -> list[Entrant]:
    return sorted(entrants, key=lambda entrant: entrant.position)


def _counts(results: Sequence[SetResult]) -> tuple[int, int, int]:
    outcomes = [result.outcome for result in results]
    return tuple(outcomes.count(o) for o in (SetOutcome.FIRST, SetOutcome.DRAWN, SetOutcome.SECOND))


def _plan_elimination(
    snapshot: _Snapshot, views: list[_PairingView], plan: _Plan, tournament_format: Format
) -> None:
    single = tournament_format is Format.SINGLE_ELIMINATION
    bracket = (single_elimination if single else double_elimination)(len(snapshot.entrants))
    winners = {view.key: view.winner for view in views if view.finished}
    progress = bracket_progress(bracket, [e.pk for e in snapshot.entrants], winners)
    existing = {view.key for view in views}
    for state in progress.ready:
        if state.key in existing:
            continue
        game = bracket.game(state.key)
        table = int(state.key.split("-")[1]) if "-" in state.key else 1
        plan.new_pairings.append(
            _NewPairing(state.key, Side(game.side), game.round, table, state.first, state.second)
        )
    plan.finish = progress.finished


def _apply(snapshot: _Snapshot, plan: _Plan) -> list[int]:
    """Write ``plan``; the ids of the matches it created, to be sent once committed."""
    now = timezone.now()
    for pairing_id, winner_id in plan.decided.items():
        Pairing.objects.filter(id=pairing_id, status=Pairing.Status.PLAYING).update(
            status=Pairing.Status.FINISHED, winner_id=winner_id, finished_at=now
        )
    if plan.version_test is not None:
        _version_test_record(snapshot.tournament, plan.version_test)
    match_ids = []
    for pairing in plan.extra_sets:
        match_ids += _set_create(snapshot, pairing, number=len(pairing.sets.all()) + 1)
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
            for number in range(1, snapshot.tournament.sets_per_pair + 1):
                match_ids += _set_create(snapshot, pairing, number=number)
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
    pending = Match.objects.filter(
        tournament_match__tournament=tournament, status=Match.Status.PENDING
    ).values_list("id", flat=True)
    dropped = matches_fail_pending(match_ids=list(pending))
    TournamentMatch.objects.filter(match_id__in=dropped).update(
        failure="the version test stopped before this match was played"
    )


def _set_create(snapshot: _Snapshot, pairing: Pairing, *, number: int) -> list[int]:
    """A duplicate set: two matches on the set's seed, the first entrant in seat 0 then 1."""
    tournament = snapshot.tournament
    seed = set_seed(tournament.seed, f"{pairing.key}/{number}")
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
    """After a match ends: settle its set if both matches are done, then advance."""
    link = TournamentMatch.objects.get(match_id=match_id)
    if link.replaced_at is None:
        duplicate_set_settle(set_id=link.duplicate_set_id)
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
    # Conditional update: both matches of a set can finish at once on two workers; both
    # see the set complete, one records it.
    settled = DuplicateSet.objects.filter(id=set_id, status=DuplicateSet.Status.PLAYING).update(
        status=DuplicateSet.Status.FINISHED,
        outcome=result.outcome,
        first_wins=result.first_wins,
        second_wins=result.second_wins,
        first_points=result.first_points,
        second_points=result.second_points,
        finished_at=timezone.now(),
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
        transaction.on_commit(functools.partial(tournament_matches_enqueue, match_ids=[fresh.pk]))
    return TournamentMatch.objects.get(match_id=fresh.pk)
