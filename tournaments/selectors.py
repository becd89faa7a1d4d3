"""Tournament reads; each runs a fixed number of queries, whatever the size.

The ratings have their own: ``tournaments.ratings.selectors``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Q, QuerySet

from bots.models import BotVersion
from matches.models import Match
from matches.selectors import match_outcomes_from_logs

from .brackets import BracketProgress, LoserOf, Seed, Source, bracket_progress
from .duplicate import SetMatch, SetResult, SetSide, set_result, set_side
from .formats import FORMATS, format_spec
from .models import (
    DuplicateSet,
    Entrant,
    Pairing,
    Tournament,
    TournamentMatch,
    current,
)
from .standings import PairedSet, StandingRow, TieBreak, standings

#: Ids per ``IN (...)`` query, well under every database's limit on parameters.
_CHUNK = 500


@dataclass(frozen=True)
class SideSet:
    """A duplicate set seen from one version's side: the read model of results that the
    head-to-head tables, an author's sets, a version test's progress and the ladder read."""

    duplicate_set: DuplicateSet
    version: BotVersion
    opponent: BotVersion
    #: Its result from the version's side; None until it is finished.
    side: SetSide | None

    @property
    def finished(self) -> bool:
        return self.side is not None


def sets_from_side(
    *,
    entrant: Entrant | None = None,
    version: BotVersion | None = None,
    tournament: Tournament | None = None,
    finished: bool = True,
) -> list[SideSet]:
    """The duplicate sets of ``entrant`` (in its tournament), or of ``version`` (in any
    tournament, or in ``tournament``), each from its side, in set order; only the finished
    ones unless ``finished`` is False. A version in both seats of a pairing (against
    itself) is read from the pairing's first side. Two queries, whatever the number."""
    if (entrant is None) == (version is None):
        raise ValueError("sets are read from the side of an entrant or of a version")
    if entrant is not None:
        on_side = Q(pairing__first=entrant) | Q(pairing__second=entrant)
    else:
        on_side = Q(pairing__first__version=version, pairing__second__isnull=False) | Q(
            pairing__second__version=version
        )
    sets = DuplicateSet.objects.filter(on_side).select_related(
        "pairing__first__version__bot__owner", "pairing__second__version__bot__owner"
    )
    if tournament is not None:
        sets = sets.filter(pairing__tournament=tournament)
    if finished:
        sets = sets.filter(status=DuplicateSet.Status.FINISHED)
    return [_side_set(s, entrant, version) for s in sets.order_by("number", "pairing__table")]


def _side_set(
    duplicate_set: DuplicateSet, entrant: Entrant | None, version: BotVersion | None
) -> SideSet:
    pairing = duplicate_set.pairing
    if entrant is not None:
        first = pairing.first_id == entrant.pk
    else:
        first = pairing.first.version_id == version.pk
    mine, theirs = (pairing.first, pairing.second) if first else (pairing.second, pairing.first)
    side = None
    if duplicate_set.status == DuplicateSet.Status.FINISHED:
        result = SetResult(
            duplicate_set.first_wins,
            duplicate_set.second_wins,
            duplicate_set.first_points,
            duplicate_set.second_points,
        )
        side = set_side(result, first=first)
    return SideSet(duplicate_set, mine.version, theirs.version, side)


def tournament_list(*, kind: str | None = None) -> QuerySet[Tournament]:
    """Every tournament, or only those of one kind (``formats.kinds()``)."""
    tournaments = Tournament.objects.all()
    if kind is None:
        return tournaments
    return tournaments.filter(format__in=_formats_of_kind(kind))


def _formats_of_kind(kind: str) -> list[str]:
    return [name for name, spec in FORMATS.items() if spec.kind == kind]


def matches_of_kind(*, matches: QuerySet[Match], kind: str) -> QuerySet[Match]:
    """Of ``matches``, those of a tournament of this kind (``formats.kinds()``)."""
    return matches.filter(tournament_match__tournament__format__in=_formats_of_kind(kind))


def tournament_entrants(*, tournament: Tournament) -> list[Entrant]:
    """Entrants in seed order once the tournament started, in entry order before."""
    return list(
        tournament.entrants.select_related("version__bot").order_by(
            F("bracket_position").asc(nulls_last=True), "position"
        )
    )


def versions_active(*, game_id: str) -> list[BotVersion]:
    """The latest ready version of every bot of the game: who a recurring tournament enters."""
    versions = BotVersion.objects.filter(
        bot__game=game_id, status=BotVersion.Status.READY
    ).select_related("bot")
    latest: dict[int, BotVersion] = {}
    for version in versions.order_by("bot__name", "number"):
        latest[version.bot_id] = version
    return list(latest.values())


def set_results_from_logs(*, set_ids: Sequence[int]) -> dict[int, SetResult]:
    """Each set's result from the ``match_finished`` events of its two current matches."""
    by_set: dict[int, list[SetMatch]] = defaultdict(list)
    for chunk in _chunks(set_ids):
        links = list(
            TournamentMatch.objects.filter(current(), duplicate_set_id__in=chunk).values_list(
                "duplicate_set_id", "match_id", "first_seat"
            )
        )
        outcomes = match_outcomes_from_logs(match_ids=[match_id for _, match_id, _ in links])
        for set_id, match_id, first_seat in links:
            if match_id not in outcomes:
                raise ValueError(f"match {match_id} of set {set_id} has no result in its log")
            outcome = outcomes[match_id]
            by_set[set_id].append(SetMatch(first_seat, outcome.winner, outcome.scores))
    return {set_id: set_result(matches) for set_id, matches in by_set.items()}


def _chunks(ids: Sequence[int]) -> Iterable[Sequence[int]]:
    for start in range(0, len(ids), _CHUNK):
        yield ids[start : start + _CHUNK]


def duplicate_sets_to_settle() -> list[int]:
    """Sets still marked playing whose two current matches have both finished."""
    done = Count(
        "matches",
        filter=current("matches__") & Q(matches__match__status=Match.Status.FINISHED),
    )
    return list(
        DuplicateSet.objects.filter(status=DuplicateSet.Status.PLAYING)
        .annotate(done=done)
        .filter(done=2)
        .values_list("id", flat=True)
    )


def tournaments_due(*, now: datetime) -> list[int]:
    return list(
        Tournament.objects.filter(
            status=Tournament.Status.SCHEDULED, starts_at__lte=now
        ).values_list("id", flat=True)
    )


def tournaments_running() -> list[int]:
    return list(
        Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("id", flat=True)
    )


@dataclass(frozen=True)
class StandingsTable:
    #: The tie-breaks that apply after place and score, in order.
    tie_breaks: tuple[TieBreak, ...]
    rows: list[tuple[Entrant, StandingRow]]


def tournament_standings(*, tournament: Tournament) -> StandingsTable:
    """Every entrant with its standing row, best first, from the finished sets."""
    entrants = tournament_entrants(tournament=tournament)
    sets = DuplicateSet.objects.filter(
        pairing__tournament=tournament, status=DuplicateSet.Status.FINISHED
    ).values_list(
        "pairing__first_id",
        "pairing__second_id",
        "first_wins",
        "second_wins",
        "first_points",
        "second_points",
    )
    paired = [PairedSet(first, second, SetResult(*result)) for first, second, *result in sets]
    byes = tournament.pairings.filter(second__isnull=True).values_list("first_id", flat=True)
    spec = format_spec(tournament.format)
    places = None
    if spec.bracket is not None and tournament.started_at is not None:
        progress = _bracket_progress(tournament, entrants)
        places = progress.placements([entrant.pk for entrant in entrants])
    tie_breaks = spec.tie_breaks
    rows = standings(
        [entrant.pk for entrant in entrants],
        paired,
        tie_breaks=tie_breaks,
        byes=list(byes),
        bye_points=float(tournament.sets_per_pair),
        places=places,
    )
    by_id = {entrant.pk: entrant for entrant in entrants}
    return StandingsTable(tie_breaks, [(by_id[row.entrant], row) for row in rows])


def _bracket_progress(tournament: Tournament, entrants: list[Entrant]) -> BracketProgress[int]:
    winners = dict(
        tournament.pairings.filter(status=Pairing.Status.FINISHED).values_list("key", "winner_id")
    )
    bracket = format_spec(tournament.format).bracket(len(entrants))
    return bracket_progress(bracket, [entrant.pk for entrant in entrants], winners)


@dataclass(frozen=True)
class BracketPairingView:
    """A bracket pairing as served: its sides, sources in words, status and ``Pairing`` row."""

    key: str
    side: str
    round: int
    sources: tuple[str, str]
    status: str
    first: Entrant | None
    second: Entrant | None
    winner: Entrant | None
    pairing: Pairing | None


def tournament_bracket(*, tournament: Tournament) -> list[BracketPairingView] | None:
    """Every pairing of an elimination bracket with who plays it and how it stands; None if
    the tournament is not an elimination. Before the start, entry order stands for seeds."""
    if format_spec(tournament.format).bracket is None:
        return None
    entrants = tournament_entrants(tournament=tournament)
    if len(entrants) < 2:
        return []
    progress = _bracket_progress(tournament, entrants)
    by_id = {entrant.pk: entrant for entrant in entrants}
    pairings = {p.key: p for p in tournament_pairings(tournament=tournament)}
    views = []
    for bracket_pairing in progress.bracket.pairings:
        state = progress.pairings[bracket_pairing.key]
        sources = bracket_pairing.sources
        views.append(
            BracketPairingView(
                key=bracket_pairing.key,
                side=bracket_pairing.side.value,
                round=bracket_pairing.round,
                sources=(_source_text(sources[0]), _source_text(sources[1])),
                status=state.status.value,
                first=by_id.get(state.first),
                second=by_id.get(state.second),
                winner=by_id.get(state.winner),
                pairing=pairings.get(bracket_pairing.key),
            )
        )
    return views


def _source_text(source: Source) -> str:
    if isinstance(source, Seed):
        return f"seed {source.number}"
    return f"{'loser' if isinstance(source, LoserOf) else 'winner'} of {source.pairing}"


def tournament_rounds(*, tournament: Tournament) -> QuerySet:
    """One row per round (per bracket side): its pairings, and how many are finished."""
    return (
        tournament.pairings.values("bracket", "round")
        .annotate(
            pairings=Count("id"),
            finished=Count("id", filter=Q(status=Pairing.Status.FINISHED)),
        )
        .order_by("round", "bracket")
    )


def tournament_pairings(*, tournament: Tournament) -> QuerySet[Pairing]:
    return tournament.pairings.select_related(
        "tournament", "first__version__bot", "second__version__bot", "winner__version__bot"
    ).prefetch_related("sets")


def pairing_result(*, pairing: Pairing) -> dict[str, Any]:
    """Set points of both entrants so far (its ``sets`` prefetched), whether the pairing is
    decided, and its winner: the bracket's decision, else whoever leads once every set the
    pairing plays is over (None for a draw)."""
    finished = [s for s in pairing.sets.all() if s.status == DuplicateSet.Status.FINISHED]
    points = [
        SetResult(s.first_wins, s.second_wins, s.first_points, s.second_points).set_points()
        for s in finished
    ]
    first, second = sum(p[0] for p in points), sum(p[1] for p in points)
    decided = pairing.status == Pairing.Status.FINISHED or (
        pairing.second_id is not None
        and len(finished) == len(pairing.sets.all()) >= pairing.tournament.sets_per_pair
    )
    winner = pairing.winner_id
    if winner is None and decided and pairing.second_id is not None and first != second:
        winner = pairing.first_id if first > second else pairing.second_id
    return {
        "first": first,
        "second": second,
        "sets_finished": len(finished),
        "decided": decided,
        "winner": winner,
    }


def tournament_progress_counts(*, tournament: Tournament) -> dict[str, int]:
    """Match counts by status; replaced matches count as failed, their replacements too."""
    rows = (
        Match.objects.filter(tournament_match__tournament=tournament)
        .values_list("status")
        .annotate(count=Count("id"))
    )
    return {**dict.fromkeys(Match.Status.values, 0), **dict(rows)}


def tournament_matches(*, tournament: Tournament) -> QuerySet[Match]:
    return (
        Match.objects.filter(tournament_match__tournament=tournament)
        .prefetch_related("seats__version__bot")
        .order_by(
            "tournament_match__duplicate_set__pairing__round",
            "tournament_match__duplicate_set__pairing__table",
            "tournament_match__duplicate_set__number",
            "id",
        )
    )
