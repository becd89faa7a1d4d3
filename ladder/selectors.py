"""Reads of the ladder, challenges and version tests."""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, QuerySet

from bots.models import BotVersion
from bots.selectors import current_versions
from matches.models import Match
from tournaments.duplicate import SideOutcome
from tournaments.formats import VERSION_TEST_BATCH_SETS, Format, format_spec
from tournaments.models import (
    DuplicateSet,
    Entrant,
    Pairing,
    Tournament,
    TournamentMatch,
    current,
)
from tournaments.queueing import QueueSnapshot, matches_of_tournament
from tournaments.ratings.maths import CONSERVATIVE_SIGMAS, PRIOR
from tournaments.ratings.selectors import rating_skills
from tournaments.selectors import SideSet, sets_from_side
from tournaments.sprt import ELO_LIMIT, elo_interval, score_interval, set_score, sprt_state

from .matchmaking import LadderVersion

#: How wide a rating's range is shown: as on the leaderboards, the estimate plus or minus
#: the sigmas the conservative rating takes off.
RANGE_SIGMAS = CONSERVATIVE_SIGMAS


def ladder_versions(*, game_id: str) -> list[BotVersion]:
    """The latest ready version of every bot of the game that is on the ladder."""
    versions = current_versions(game_id=game_id, on_ladder=True).select_related("bot__owner")
    return list(versions.order_by("bot_id"))


def ladder(*, game_id: str) -> Tournament | None:
    return Tournament.objects.filter(game=game_id, format=Format.LADDER).first()


def ladder_sets_in_flight(*, ladder: Tournament) -> int:
    return DuplicateSet.objects.filter(
        pairing__tournament=ladder, status=DuplicateSet.Status.PLAYING
    ).count()


def ladder_recent_pairs(*, ladder: Tournament, since: datetime) -> dict[frozenset[int], int]:
    """Entrant pair -> the sets of its pairings made since ``since``."""
    sets = DuplicateSet.objects.filter(
        pairing__tournament=ladder, pairing__created_at__gte=since
    ).values_list("pairing__first_id", "pairing__second_id")
    return dict(Counter(frozenset(pair) for pair in sets))


def _per_entrant(rows: QuerySet, pairing: str = "") -> dict[int, int]:
    """How many of ``rows`` each entrant has, over the pairings where it sits either side,
    or over the sets of those pairings (``pairing="pairing__"``)."""
    found: Counter[int] = Counter()
    for side in (f"{pairing}first_id", f"{pairing}second_id"):
        for entrant, count in rows.values(side).annotate(n=Count("id")).values_list(side, "n"):
            found[entrant] += count
    return dict(found)


def ladder_views(
    *, ladder: Tournament, entrants: Sequence[Entrant], now: datetime
) -> list[LadderVersion]:
    """The matchmaker's picture of ``entrants``: rating, sets, wait, and whether busy."""
    # What grows with the ladder's history is read off the entrants (their kept counts);
    # only the last hours' sets and the pairings still playing are counted here.
    pairings = Pairing.objects.filter(tournament=ladder)
    since = now - _recent()
    recent_sets = DuplicateSet.objects.filter(
        pairing__tournament=ladder, pairing__created_at__gte=since
    )
    recent = _per_entrant(recent_sets, pairing="pairing__")
    busy = set(_per_entrant(pairings.filter(status=Pairing.Status.PLAYING)))
    skills = rating_skills(
        game_id=ladder.game, version_ids=[entrant.version_id for entrant in entrants]
    )
    views = []
    for entrant in entrants:
        skill = skills.get(entrant.version_id, PRIOR)
        joined = entrant.version.checked_at or entrant.version.created_at
        views.append(
            LadderVersion(
                id=entrant.pk,
                mu=skill.mu,
                sigma=skill.sigma,
                sets=entrant.sets_finished,
                recent_sets=recent.get(entrant.pk, 0),
                waiting_since=(entrant.last_paired_at or joined).timestamp(),
                busy=entrant.pk in busy,
            )
        )
    return views


def _recent() -> timedelta:
    return timedelta(hours=settings.BAIZE_LADDER_RECENT_HOURS)


@dataclass(frozen=True)
class LadderRow:
    rank: int
    version: BotVersion
    mu: float
    sigma: float
    conservative: float
    low: float
    high: float
    sets: int
    placement_sets: int
    last_played: datetime | None

    @property
    def placing(self) -> bool:
        return self.sets < self.placement_sets


def ladder_table(*, game_id: str) -> list[LadderRow]:
    """The game's active ladder versions by conservative rating, best first."""
    the_ladder = ladder(game_id=game_id)
    versions = ladder_versions(game_id=game_id)
    if the_ladder is None or not versions:
        return []
    entrants = {
        e.version_id: e for e in Entrant.objects.filter(tournament=the_ladder, version__in=versions)
    }
    skills = rating_skills(game_id=game_id, version_ids=[v.pk for v in versions])
    placement = settings.BAIZE_LADDER_PLACEMENT_SETS
    rows = []
    for version in versions:
        skill = skills.get(version.pk, PRIOR)
        entrant = entrants.get(version.pk)
        rows.append(
            (
                version,
                skill,
                entrant.sets_finished if entrant else 0,
                entrant.last_set_finished_at if entrant else None,
            )
        )
    rows.sort(key=lambda row: (-row[1].conservative, row[0].pk))
    return [
        LadderRow(
            rank=rank,
            version=version,
            mu=skill.mu,
            sigma=skill.sigma,
            conservative=skill.conservative,
            low=skill.mu - RANGE_SIGMAS * skill.sigma,
            high=skill.mu + RANGE_SIGMAS * skill.sigma,
            sets=sets,
            placement_sets=placement,
            last_played=last_played,
        )
        for rank, (version, skill, sets, last_played) in enumerate(rows, start=1)
    ]


def ladder_recent_sets(*, game_id: str, limit: int | None = 20) -> QuerySet[DuplicateSet]:
    """The game's latest finished ladder sets, newest first."""
    sets = (
        DuplicateSet.objects.filter(
            pairing__tournament__game=game_id,
            pairing__tournament__format=Format.LADDER,
            status=DuplicateSet.Status.FINISHED,
        )
        .select_related(
            "pairing__first__version__bot__owner", "pairing__second__version__bot__owner"
        )
        .order_by("-finished_at", "-id")
    )
    return sets if limit is None else sets[:limit]


def author_versions(*, tournament: Tournament) -> tuple[BotVersion, list[BotVersion]]:
    """The challenger (or candidate), then its opponents in entry order: the one it
    challenged (or the baseline), or a version test's pool."""
    entrants = Entrant.objects.filter(tournament=tournament).select_related("version__bot__owner")
    first, *opponents = (entrant.version for entrant in entrants.order_by("position"))
    return first, opponents


AUTHOR_FORMATS = (Format.CHALLENGE, Format.VERSION_TEST)


def author_sets_since(*, user: Any, since: datetime) -> int:
    """Sets the user's challenges and tests made since ``since`` reserve: a challenge its
    sets, a running test its cap, a finished one the sets it played (not those of its last
    batches that it dropped unplayed once it had decided)."""
    made = Tournament.objects.filter(
        organiser=user, format__in=AUTHOR_FORMATS, created_at__gte=since
    ).select_related("version_test")
    total = 0
    for tournament in made:
        if not format_spec(tournament.format).tests_versions:
            total += tournament.sets_per_pair
        elif tournament.status == Tournament.Status.RUNNING:
            total += tournament.version_test.max_sets
        else:
            total += DuplicateSet.objects.filter(
                pairing__tournament=tournament, status=DuplicateSet.Status.FINISHED
            ).count()
    return total


@dataclass(frozen=True)
class SetTally:
    """Finished sets read from one version's side: sets won, drawn and lost, match points
    for and against, and the mean set score (a draw is 1/2) with its Wilson interval."""

    wins: int
    draws: int
    losses: int
    points: int
    opponent_points: int

    @property
    def sets(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        return set_score(self.wins, self.draws, self.losses)

    @property
    def score_interval(self) -> tuple[float, float]:
        return score_interval(self.wins, self.draws, self.losses)


@dataclass(frozen=True)
class HeadToHead(SetTally):
    """The challenger's (or candidate's) finished sets against its opponents, from its side
    whichever seat of each pairing it holds, with the mean score's Wilson interval."""

    sets_planned: int

    @property
    def elo_interval(self) -> tuple[float, float]:
        return elo_interval(self.wins, self.draws, self.losses)

    @property
    def elo_interval_cut(self) -> tuple[bool, bool]:
        """Whether each end of the Elo interval is cut at ``ELO_LIMIT`` (reaches beyond it)."""
        low, high = self.elo_interval
        return low <= -ELO_LIMIT, high >= ELO_LIMIT


def _challenger(tournament: Tournament) -> Entrant:
    """The entrant the author entered first: the challenger, or the version under test.
    Seeding may put it second in a pairing (an opponent rated higher is seed 1)."""
    return Entrant.objects.filter(tournament=tournament).order_by("position").first()


def _tally(sets: list[SideSet]) -> dict[str, int]:
    """Finished sets from one side: sets won, drawn and lost, match points for and against
    (``SetTally``'s fields)."""
    outcomes = Counter(side_set.side.outcome for side_set in sets)
    return {
        "wins": outcomes[SideOutcome.WON],
        "draws": outcomes[SideOutcome.DRAWN],
        "losses": outcomes[SideOutcome.LOST],
        "points": sum(side_set.side.points for side_set in sets),
        "opponent_points": sum(side_set.side.opponent_points for side_set in sets),
    }


def head_to_head(*, tournament: Tournament) -> HeadToHead:
    challenger = _challenger(tournament)
    sets = [] if challenger is None else sets_from_side(entrant=challenger)
    if format_spec(tournament.format).tests_versions:
        planned = tournament.version_test.max_sets  # at most
    else:
        planned = tournament.sets_per_pair
    return HeadToHead(**_tally(sets), sets_planned=planned)


#: The matches a version's head-to-head row links to, newest first.
HEAD_TO_HEAD_MATCHES = 20


@dataclass(frozen=True)
class OpponentRecord(SetTally):
    """A version's finished duplicate sets against one opponent version, from its side,
    over every tournament (the ladder, challenges and version tests included)."""

    opponent: BotVersion
    matches_won: int
    matches_lost: int
    last_met: datetime | None
    #: Its matches against the opponent, newest first, at most ``HEAD_TO_HEAD_MATCHES``.
    match_ids: list[int]


def latest_ready_version(*, bot_id: int) -> BotVersion | None:
    return current_versions(bot_id=bot_id).select_related("bot").first()


def version_head_to_head(*, version: BotVersion) -> list[OpponentRecord]:
    """One row per opponent version ``version`` has finished a duplicate set against, in any
    tournament, read from its side whichever seat of each pairing it held; the opponent met
    last first."""
    by_opponent: dict[int, list[SideSet]] = {}
    for side_set in sets_from_side(version=version):
        by_opponent.setdefault(side_set.opponent.pk, []).append(side_set)
    set_opponent = {
        side_set.duplicate_set.pk: opponent
        for opponent, sets in by_opponent.items()
        for side_set in sets
    }
    links = (
        TournamentMatch.objects.filter(
            current(), duplicate_set__in=list(set_opponent), match__status=Match.Status.FINISHED
        )
        .order_by("-match__finished_at", "-match_id")
        .values_list("duplicate_set_id", "match_id")
    )
    matches: dict[int, list[int]] = {}
    for set_id, match_id in links:
        found = matches.setdefault(set_opponent[set_id], [])
        if len(found) < HEAD_TO_HEAD_MATCHES:
            found.append(match_id)
    records = [
        _opponent_record(sets, matches.get(opponent, [])) for opponent, sets in by_opponent.items()
    ]
    records.sort(key=lambda r: r.opponent.pk)
    records.sort(key=lambda r: r.last_met.timestamp() if r.last_met else 0.0, reverse=True)
    return records


def _opponent_record(sets: list[SideSet], match_ids: list[int]) -> OpponentRecord:
    finished = [s.duplicate_set.finished_at for s in sets if s.duplicate_set.finished_at]
    return OpponentRecord(
        **_tally(sets),
        opponent=sets[0].opponent,
        matches_won=sum(s.side.matches_won for s in sets),
        matches_lost=sum(s.side.matches_lost for s in sets),
        last_met=max(finished, default=None),
        match_ids=match_ids,
    )


class SetStatus(enum.StrEnum):
    FINISHED = "finished"
    PLAYING = "playing"
    #: The challenge or test stopped (decided, or cancelled) before the set was played.
    NOT_PLAYED = "not_played"


@dataclass(frozen=True)
class AuthorSet:
    """One set of a challenge or version test, from the challenger's side."""

    number: int
    opponent: BotVersion
    status: SetStatus
    #: ``won``, ``drawn`` or ``lost``; empty until finished.
    result: str
    matches_won: int
    matches_lost: int
    points: int
    opponent_points: int
    #: Why a set was not played; empty otherwise.
    reason: str
    #: Its matches that were played or are being played (not those dropped unplayed).
    match_ids: list[int]


def author_sets(*, tournament: Tournament) -> list[AuthorSet]:
    """Every set of the challenge or test in order, from the challenger's side."""
    challenger = _challenger(tournament)
    if challenger is None:
        return []
    matches: dict[int, list[int]] = {}
    # A match dropped unplayed when the tournament stopped is no match to link to.
    links = (
        TournamentMatch.objects.filter(current(), tournament=tournament)
        .exclude(match__status=Match.Status.FAILED, match__started_at__isnull=True)
        .order_by("first_seat")
    )
    for set_id, match_id in links.values_list("duplicate_set_id", "match_id"):
        matches.setdefault(set_id, []).append(match_id)
    stopped = tournament.status != Tournament.Status.RUNNING
    return [
        _author_set(s, stopped, tournament, matches.get(s.duplicate_set.pk, []))
        for s in sets_from_side(entrant=challenger, finished=False)
    ]


def _author_set(
    side_set: SideSet, stopped: bool, tournament: Tournament, match_ids: list[int]
) -> AuthorSet:
    side = side_set.side
    if side is not None:
        status = SetStatus.FINISHED
    else:
        status = SetStatus.NOT_PLAYED if stopped else SetStatus.PLAYING
    return AuthorSet(
        number=side_set.duplicate_set.number,
        opponent=side_set.opponent,
        status=status,
        result="" if side is None else side.outcome.value,
        matches_won=0 if side is None else side.matches_won,
        matches_lost=0 if side is None else side.matches_lost,
        points=0 if side is None else side.points,
        opponent_points=0 if side is None else side.opponent_points,
        reason=_not_played_reason(tournament) if status is SetStatus.NOT_PLAYED else "",
        match_ids=match_ids,
    )


def _not_played_reason(tournament: Tournament) -> str:
    if tournament.status == Tournament.Status.CANCELLED:
        return f"cancelled: {tournament.status_reason}" if tournament.status_reason else "cancelled"
    if format_spec(tournament.format).tests_versions:
        return "the test had decided before this set was played"
    return "the challenge ended before this set was played"


@dataclass(frozen=True)
class TestProgress:
    head_to_head: HeadToHead
    llr: float
    lower_bound: float
    upper_bound: float
    verdict: str


def version_test_progress(*, tournament: Tournament) -> TestProgress:
    """Live: the LLR of the sets so far; once stopped, the verdict and its numbers."""
    test = tournament.version_test
    parameters = test.parameters
    played = head_to_head(tournament=tournament)
    if test.verdict != "pending":
        llr, verdict = test.llr, test.verdict
    else:
        state = sprt_state(played.wins, played.draws, played.losses, parameters)
        llr, verdict = state.llr, "pending"
    return TestProgress(played, llr, parameters.lower_bound, parameters.upper_bound, verdict)


@dataclass(frozen=True)
class AuthorEta:
    """Where a running challenge or version test stands in the queue (``tournaments.queueing``):
    its place in line (None once nothing of it waits), the tasks ahead of it, its matches
    left, and the seconds until it is expected to finish (None: no worker can say, or it
    is over). A version test's figure adds the sets its LLR's trend says it still needs,
    once it has played a batch; before, it covers the sets it has asked for."""

    position: int | None
    tasks_ahead: int
    matches_left: int
    eta_seconds: int | None


def author_eta(*, tournament: Tournament, snapshot: QueueSnapshot) -> AuthorEta:
    """Where ``tournament`` stands in ``snapshot`` (read once per request)."""
    if tournament.status != Tournament.Status.RUNNING or not snapshot.plays:
        return AuthorEta(None, 0, 0, None)
    eta = snapshot.tournament_eta(tournament.pk)
    seconds = eta.eta_seconds
    if seconds is not None and format_spec(tournament.format).tests_versions:
        seconds += _test_batches_seconds(tournament, snapshot, in_flight=eta.matches_left // 2)
    return AuthorEta(
        eta.position, eta.tasks_ahead, eta.matches_left, None if seconds is None else round(seconds)
    )


def _test_batches_seconds(
    tournament: Tournament, snapshot: QueueSnapshot, *, in_flight: int
) -> float:
    """The further batches a version test is expected to play: the sets left to its
    nearer bound at the LLR's pace so far, each batch queued at its priority and played by
    two tasks side by side."""
    progress = version_test_progress(tournament=tournament)
    played = progress.head_to_head.sets
    if played < VERSION_TEST_BATCH_SETS or progress.llr == 0:
        return 0.0
    pace = progress.llr / played
    bound = progress.upper_bound if pace > 0 else progress.lower_bound
    room = tournament.version_test.max_sets - played - in_flight
    sets_left = min(max((bound - progress.llr) / pace - in_flight, 0.0), room)
    pairings = max(len(author_versions(tournament=tournament)[1]), 1)
    batches = math.ceil(sets_left / (VERSION_TEST_BATCH_SETS * pairings))
    if batches <= 0:
        return 0.0
    game, priority, sandboxed = matches_of_tournament(tournament=tournament)
    wait = snapshot.expected_wait(priority=priority, sandboxed=sandboxed) or 0.0
    # A batch: two tasks of half its sets each, side by side, two matches a set.
    per_batch = wait + VERSION_TEST_BATCH_SETS * snapshot.costs.of(game, sandboxed)
    return batches * per_batch
