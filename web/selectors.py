"""Reads for the public pages, each a fixed number of queries whatever the data size.

The tournaments and bots apps own their reads; what is here only gathers what a page
shows and does not fit theirs: the home page's summaries, a bot's recent matches, a
match's seats, tournament and forfeit.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Q, QuerySet

from bots.models import Bot, BotVersion
from errors import NotFound
from games.events import EventType, ForfeitReason, ResultReason
from games.rules import GAMES
from ladder.selectors import OpponentRecord, latest_ready_version, version_head_to_head
from matches import selectors as match_selectors
from matches.models import Match, MatchSeat
from matches.selectors import match_events_visible
from matches.visibility import match_access
from tournaments import selectors as tournament_selectors
from tournaments.brackets import Side
from tournaments.duplicate import SetResult
from tournaments.formats import Page, format_names, format_spec
from tournaments.models import (
    DuplicateSet,
    Entrant,
    Pairing,
    Tournament,
    TournamentMatch,
    current,
)
from tournaments.ratings import selectors as rating_selectors
from tournaments.ratings.models import Rating
from tournaments.selectors import BracketPairingView, StandingsTable

from .brackets import Section, bracket_sections

RECENT = 10
RUNNING = 20
_DONE = [Match.Status.FINISHED, Match.Status.FAILED]


def tournaments_with_progress() -> QuerySet[Tournament]:
    """Tournaments with ``matches_total``, ``matches_done`` and ``matches_running``."""
    current_links = current("matches__")
    organised = format_names(organised=True)  # the ladder has its own pages
    return Tournament.objects.filter(format__in=organised).annotate(
        matches_total=Count("matches", filter=current_links),
        matches_done=Count("matches", filter=current_links & Q(matches__match__status__in=_DONE)),
        matches_running=Count(
            "matches", filter=current_links & Q(matches__match__status=Match.Status.RUNNING)
        ),
    )


@dataclass
class GameSummary:
    id: str
    name: str
    bots: int
    rated: int


def game_summaries() -> list[GameSummary]:
    """Every game with how many bots play it and how many versions have a rating."""
    bots = dict(Bot.objects.values_list("game").annotate(count=Count("id")))
    rated = rating_selectors.rated_counts()
    return [
        GameSummary(game.id, game.name, bots.get(game.id, 0), rated.get(game.id, 0))
        for game in GAMES.values()
    ]


@dataclass
class HomePage:
    games: list[GameSummary]
    running: list[Tournament]
    upcoming: list[Tournament]
    recent: list[Tournament]


def home_page() -> HomePage:
    tournaments = tournaments_with_progress()
    status = Tournament.Status
    return HomePage(
        games=game_summaries(),
        running=list(
            tournaments.filter(status=status.RUNNING).order_by("-started_at", "-id")[:RUNNING]
        ),
        upcoming=list(
            tournaments.filter(status=status.SCHEDULED).order_by("starts_at", "id")[:RECENT]
        ),
        recent=list(
            tournaments.filter(status=status.FINISHED).order_by("-finished_at", "-id")[:RECENT]
        ),
    )


@dataclass
class MatchRow:
    """One match as a line of a list: its players by seat, its result."""

    match: Match
    players: list[BotVersion | None] = field(default_factory=lambda: [None, None])


def match_rows(matches: list[Match]) -> list[MatchRow]:
    """The matches with their seated versions (and bots), in one more query."""
    rows = {match.pk: MatchRow(match) for match in matches}
    seats = MatchSeat.objects.filter(match_id__in=list(rows)).select_related("version__bot")
    for seat in seats:
        rows[seat.match_id].players[seat.seat] = seat.version
    return list(rows.values())


def tournament_running_matches(*, tournament: Tournament) -> list[MatchRow]:
    matches = Match.objects.filter(
        tournament_match__tournament=tournament, status=Match.Status.RUNNING
    ).order_by("started_at", "id")
    return match_rows(list(matches))


def tournament_match_links(*, tournament: Tournament) -> dict[int, list[dict[str, Any]]]:
    """Pairing id -> its current matches (id, set number, status, winner side, scores)."""
    rows = (
        TournamentMatch.objects.filter(current(), tournament=tournament)
        .order_by("duplicate_set__number", "first_seat")
        .values_list(
            "duplicate_set__pairing_id",
            "duplicate_set__number",
            "first_seat",
            "match_id",
            "match__status",
            "match__winner",
            "match__scores",
        )
    )
    links: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for pairing_id, set_number, first_seat, match_id, status, winner, scores in rows:
        links[pairing_id].append(
            {
                "id": match_id,
                "set": set_number,
                "first_seat": first_seat,
                "status": status,
                "first_won": None if winner is None else winner == first_seat,
                "scores": scores,
            }
        )
    return links


#: A forfeit's reason in the words of a page.
FORFEIT_WORDS = {
    ForfeitReason.TIMEOUT: "out of time",
    ForfeitReason.CRASH: "crashed",
    ForfeitReason.BAD_REPLY: "bad reply",
    ForfeitReason.ILLEGAL_ACTION: "illegal action",
    ForfeitReason.START_FAILED: "did not start",
}


@dataclass(frozen=True)
class ForfeitShown:
    """Which seat forfeited a match and why (a ``ForfeitReason`` value), as anyone may see."""

    seat: int
    reason: str
    #: What the runner saw, as the public view of the log shows it; None where not shown.
    detail: str | None = None

    @property
    def words(self) -> str:
        return FORFEIT_WORDS.get(self.reason, self.reason)


def match_forfeits(match_ids: list[int]) -> dict[int, ForfeitShown]:
    """The forfeit of each of these matches that ended by one, in one query, without detail.

    The seat and the reason are public in every view of a log (``matches.redaction``
    withholds only a forfeit's detail), so they are read as stored.
    """
    forfeits = match_selectors.match_forfeits(match_ids=match_ids)
    return {
        match_id: ForfeitShown(payload["seat"], payload["reason"])
        for match_id, payload in forfeits.items()
    }


def match_forfeit_public(match: Match) -> ForfeitShown | None:
    """The match's forfeit as its public event log shows it (``matches.visibility``): the
    detail never holds a bot's stderr, and is None while it names cards still face down."""
    access = match_access(match=match, user=AnonymousUser(), view=None)
    for event in match_events_visible(access=access):
        if event["type"] == EventType.FORFEIT:
            payload = event["payload"]
            return ForfeitShown(payload["seat"], payload["reason"], payload.get("detail"))
    return None


@dataclass
class BotMatch:
    """A match seen from one bot's seat."""

    match: Match
    seat: int
    version: BotVersion
    opponent: BotVersion | None
    forfeit: ForfeitShown | None = None

    @property
    def forfeited_here(self) -> bool:
        """This bot's seat forfeited the match (not its opponent's)."""
        return self.forfeit is not None and self.forfeit.seat == self.seat

    @property
    def won(self) -> bool | None:
        return None if self.match.winner is None else self.match.winner == self.seat

    @property
    def score(self) -> tuple[int, int] | None:
        scores = self.match.scores
        return None if scores is None else (scores[self.seat], scores[1 - self.seat])


def bot_matches(rows: list[MatchRow], bot: Bot) -> list[BotMatch]:
    """The matches of ``rows`` from ``bot``'s seat, with their forfeits (one more query)."""
    forfeits = match_forfeits([row.match.pk for row in rows])
    seen = []
    for row in rows:
        seat = 0 if row.players[0] and row.players[0].bot_id == bot.pk else 1
        opponent = row.players[1 - seat]
        forfeit = forfeits.get(row.match.pk)
        seen.append(BotMatch(row.match, seat, row.players[seat], opponent, forfeit))
    return seen


@dataclass
class BotPage:
    bot: Bot
    versions: list[BotVersion]
    ratings: dict[int, Rating]
    entries: list[Entrant]
    recent: list[BotMatch]
    #: The version whose record against each opponent version is shown: the one asked for,
    #: else the latest ready one; None for a bot with neither.
    head_version: BotVersion | None = None
    head_to_head: list[OpponentRecord] = field(default_factory=list)

    @property
    def ready(self) -> list[BotVersion]:
        """Its ready versions, newest first: the head-to-head of each is a link away."""
        return [v for v in self.versions if v.status == BotVersion.Status.READY]


def bot_page(*, bot: Bot, version_number: int | None = None) -> BotPage:
    """Everything a bot's page shows; the head-to-head of its version ``version_number``
    (``NotFound`` if it has none), by default of its latest ready one."""
    versions = list(bot.versions.order_by("-number"))
    if version_number is None:
        head_version = latest_ready_version(bot_id=bot.pk)
    else:
        head_version = next((v for v in versions if v.number == version_number), None)
        if head_version is None:
            raise NotFound(f"{bot} has no version {version_number}")
    ratings = rating_selectors.bot_ratings(bot_id=bot.pk)
    entries = list(
        Entrant.objects.filter(version__bot=bot)
        .select_related("tournament", "version")
        .order_by("-tournament__created_at", "-tournament_id")[:RECENT]
    )
    recent = Match.objects.filter(seats__version__bot=bot).distinct().order_by("-id")[:20]
    return BotPage(
        bot,
        versions,
        ratings,
        entries,
        bot_matches(match_rows(list(recent)), bot),
        head_version,
        version_head_to_head(version=head_version) if head_version else [],
    )


@dataclass
class MatchPage:
    match: Match
    players: list[BotVersion | None]
    tournament: Tournament | None
    forfeit: ForfeitShown | None = None


def match_page(*, match_id: int) -> MatchPage | None:
    match = Match.objects.select_related("tournament_match__tournament").filter(pk=match_id).first()
    if match is None:
        return None
    [row] = match_rows([match])
    link = getattr(match, "tournament_match", None)
    forfeit = match_forfeit_public(match) if match.result_reason == ResultReason.FORFEIT else None
    return MatchPage(match, row.players, link.tournament if link else None, forfeit)


@dataclass
class PairingView:
    """A pairing with its set points so far and its current matches."""

    pairing: Pairing
    first_points: float = 0.0
    second_points: float = 0.0
    sets_finished: int = 0
    matches: list[dict[str, Any]] = field(default_factory=list)


def pairing_views(
    pairings: list[Pairing], links: dict[int, list[dict[str, Any]]]
) -> list[PairingView]:
    """Each pairing (its ``sets`` prefetched) with its set points and match links."""
    views = []
    for pairing in pairings:
        view = PairingView(pairing, matches=links.get(pairing.pk, []))
        for duplicate_set in pairing.sets.all():
            if duplicate_set.status == DuplicateSet.Status.FINISHED:
                first, second = SetResult(
                    duplicate_set.first_wins,
                    duplicate_set.second_wins,
                    duplicate_set.first_points,
                    duplicate_set.second_points,
                ).set_points()
                view.first_points += first
                view.second_points += second
                view.sets_finished += 1
        views.append(view)
    return views


@dataclass
class Round:
    number: int
    pairings: list[PairingView]


def rounds_of(views: list[PairingView]) -> list[Round]:
    rounds: dict[int, Round] = {}
    for view in views:
        rounds.setdefault(view.pairing.round, Round(view.pairing.round, [])).pairings.append(view)
    return [rounds[number] for number in sorted(rounds)]


@dataclass
class CrossCell:
    points: float = 0.0
    sets: int = 0


@dataclass
class CrossTable:
    """A round robin's results, entrant by entrant: set points taken over sets played."""

    entrants: list[Entrant]
    rows: list[list[CrossCell | None]]


def cross_table(entrants: list[Entrant], views: list[PairingView]) -> CrossTable:
    index = {entrant.pk: i for i, entrant in enumerate(entrants)}
    rows: list[list[CrossCell | None]] = [
        [None if i == j else CrossCell() for j in range(len(entrants))]
        for i in range(len(entrants))
    ]
    for view in views:
        pairing = view.pairing
        if pairing.second_id is None:
            continue
        first, second = index[pairing.first_id], index[pairing.second_id]
        for row, column, points in (
            (first, second, view.first_points),
            (second, first, view.second_points),
        ):
            rows[row][column].points += points
            rows[row][column].sets += view.sets_finished
    return CrossTable(entrants, rows)


@dataclass
class TournamentPage:
    tournament: Tournament
    standings: StandingsTable
    rounds: list[Round]
    bracket: list[Section] | None
    cross: CrossTable | None
    running: list[MatchRow]
    counts: dict[str, int]
    #: The format's rounds may give byes: the standings show them.
    byes: bool = False

    @property
    def matches_done(self) -> int:
        return self.counts[Match.Status.FINISHED] + self.counts[Match.Status.FAILED]

    @property
    def matches_total(self) -> int:
        return sum(self.counts.values())


def tournament_page(*, tournament: Tournament) -> TournamentPage:
    """Everything the tournament page shows below its heading."""
    spec = format_spec(tournament.format)
    standings = tournament_selectors.tournament_standings(tournament=tournament)
    links = tournament_match_links(tournament=tournament)
    bracket, cross = None, None
    if spec.page is Page.BRACKET:
        bracket_pairings = tournament_selectors.tournament_bracket(tournament=tournament) or []
        views = pairing_views([each.pairing for each in bracket_pairings if each.pairing], links)
        by_key = {view.pairing.key: view for view in views}
        boxes = [BracketBox(each, by_key.get(each.key)) for each in bracket_pairings]
        double = any(each.side == Side.FINAL for each in bracket_pairings)
        bracket = bracket_sections(boxes, double=double)
    else:
        pairings = tournament_selectors.tournament_pairings(tournament=tournament)
        views = pairing_views(list(pairings), links)
    if spec.page is Page.CROSS_TABLE:
        cross = cross_table([entrant for entrant, _ in standings.rows], views)
    return TournamentPage(
        tournament=tournament,
        standings=standings,
        rounds=rounds_of(views),
        bracket=bracket,
        cross=cross,
        running=tournament_running_matches(tournament=tournament),
        counts=tournament_selectors.tournament_progress_counts(tournament=tournament),
        byes=spec.byes,
    )


@dataclass
class BracketBox:
    """A bracket pairing as drawn: the tournaments app's view of it and its results."""

    pairing: BracketPairingView
    results: PairingView | None

    @property
    def side(self) -> str:
        return self.pairing.side

    @property
    def round(self) -> int:
        return self.pairing.round
