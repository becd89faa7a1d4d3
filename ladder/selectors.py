"""Reads of the ladder, challenges and version tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Max, OuterRef, QuerySet, Subquery, Sum

from bots.models import BotVersion
from tournaments.formats import Format
from tournaments.models import DuplicateSet, Entrant, Pairing, Rating, Tournament
from tournaments.ratings import CONSERVATIVE_SIGMAS, PRIOR, Skill
from tournaments.sprt import elo_of_score, score_interval, sprt_state

from .matchmaking import LadderVersion

#: How wide a rating's range is shown: as on the leaderboards, the estimate plus or minus
#: the sigmas the conservative rating takes off.
RANGE_SIGMAS = CONSERVATIVE_SIGMAS


def ladder_versions(*, game_id: str) -> list[BotVersion]:
    """The latest ready version of every bot of the game that is on the ladder."""
    ready = BotVersion.objects.filter(
        bot__game=game_id, bot__on_ladder=True, status=BotVersion.Status.READY
    )
    latest = ready.filter(bot=OuterRef("bot")).order_by("-number").values("number")[:1]
    versions = ready.filter(number=Subquery(latest)).select_related("bot__owner")
    return list(versions.order_by("bot_id"))


def ladder(*, game_id: str) -> Tournament | None:
    return Tournament.objects.filter(game=game_id, format=Format.LADDER).first()


def ladder_sets_in_flight(*, ladder: Tournament) -> int:
    return DuplicateSet.objects.filter(
        pairing__tournament=ladder, status=DuplicateSet.Status.PLAYING
    ).count()


def ladder_recent_pairs(*, ladder: Tournament, since: datetime) -> dict[frozenset[int], int]:
    pairs = Pairing.objects.filter(tournament=ladder, created_at__gte=since)
    return dict(Counter(frozenset(p) for p in pairs.values_list("first_id", "second_id")))


def _per_entrant(pairings: QuerySet[Pairing], value: Any) -> dict[int, Any]:
    """``value`` (an aggregate) per entrant, over the pairings where it sits either side."""
    found: dict[int, Any] = {}
    for side in ("first_id", "second_id"):
        for entrant, result in pairings.values(side).annotate(v=value).values_list(side, "v"):
            if isinstance(result, int):
                found[entrant] = found.get(entrant, 0) + result
            else:
                found[entrant] = max(filter(None, (found.get(entrant), result)))
    return found


def ladder_views(
    *, ladder: Tournament, entrants: Sequence[Entrant], now: datetime
) -> list[LadderVersion]:
    """The matchmaker's picture of ``entrants``: rating, sets, wait, and whether busy."""
    pairings = Pairing.objects.filter(tournament=ladder)
    finished = _per_entrant(pairings.filter(status=Pairing.Status.FINISHED), Count("id"))
    since = now - _recent()
    recent = _per_entrant(pairings.filter(created_at__gte=since), Count("id"))
    last = _per_entrant(pairings, Max("created_at"))
    busy = set(_per_entrant(pairings.filter(status=Pairing.Status.PLAYING), Count("id")))
    skills = _skills(ladder.game, [entrant.version_id for entrant in entrants])
    views = []
    for entrant in entrants:
        skill = skills.get(entrant.version_id, PRIOR)
        joined = entrant.version.checked_at or entrant.version.created_at
        views.append(
            LadderVersion(
                id=entrant.pk,
                mu=skill.mu,
                sigma=skill.sigma,
                sets=finished.get(entrant.pk, 0),
                recent_sets=recent.get(entrant.pk, 0),
                waiting_since=(last.get(entrant.pk) or joined).timestamp(),
                busy=entrant.pk in busy,
            )
        )
    return views


def _recent() -> timedelta:
    return timedelta(hours=settings.BAIZE_LADDER_RECENT_HOURS)


def _skills(game_id: str, version_ids: Sequence[int]) -> dict[int, Skill]:
    rows = Rating.objects.filter(leaderboard__game=game_id, version_id__in=version_ids)
    return {r.version_id: Skill(r.mu, r.sigma) for r in rows}


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
    pairings = Pairing.objects.filter(tournament=the_ladder)
    finished = _per_entrant(pairings.filter(status=Pairing.Status.FINISHED), Count("id"))
    last = _per_entrant(pairings.filter(status=Pairing.Status.FINISHED), Max("finished_at"))
    skills = _skills(game_id, [v.pk for v in versions])
    placement = settings.BAIZE_LADDER_PLACEMENT_SETS
    rows = []
    for version in versions:
        skill = skills.get(version.pk, PRIOR)
        entrant = entrants.get(version.pk)
        key = entrant.pk if entrant else None
        rows.append(
            (
                version,
                skill,
                finished.get(key, 0),
                last.get(key),
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
    sets, a running test its cap, a finished one the sets it played."""
    made = Tournament.objects.filter(
        organiser=user, format__in=AUTHOR_FORMATS, created_at__gte=since
    ).select_related("version_test")
    total = 0
    for tournament in made:
        if tournament.format == Format.CHALLENGE:
            total += tournament.sets_per_pair
        elif tournament.status == Tournament.Status.RUNNING:
            total += tournament.version_test.max_sets
        else:
            total += DuplicateSet.objects.filter(pairing__tournament=tournament).count()
    return total


def author_tournaments(*, user: Any, format: Format) -> QuerySet[Tournament]:
    return Tournament.objects.filter(organiser=user, format=format).order_by("-created_at")


@dataclass(frozen=True)
class HeadToHead:
    """The first entrant's sets against the second's, with their mean score's interval."""

    wins: int
    draws: int
    losses: int
    first_points: int
    second_points: int
    sets_planned: int

    @property
    def sets(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        return (self.wins + self.draws / 2) / self.sets if self.sets else None

    @property
    def score_interval(self) -> tuple[float, float]:
        return score_interval(self.wins, self.draws, self.losses)

    @property
    def elo_interval(self) -> tuple[float, float]:
        low, high = self.score_interval
        return elo_of_score(low), elo_of_score(high)


def head_to_head(*, tournament: Tournament) -> HeadToHead:
    finished = DuplicateSet.objects.filter(
        pairing__tournament=tournament, status=DuplicateSet.Status.FINISHED
    )
    outcomes = Counter(finished.values_list("outcome", flat=True))
    points = finished.aggregate(first=Sum("first_points"), second=Sum("second_points"))
    if tournament.format == Format.VERSION_TEST:
        planned = tournament.version_test.max_sets  # at most
    else:
        planned = tournament.sets_per_pair
    return HeadToHead(
        wins=outcomes.get("first", 0),
        draws=outcomes.get("drawn", 0),
        losses=outcomes.get("second", 0),
        first_points=points["first"] or 0,
        second_points=points["second"] or 0,
        sets_planned=planned,
    )


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
