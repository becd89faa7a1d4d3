"""What the ladder, challenge and version-test pages show (reads only)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch

from games.rules import GAMES
from ladder import selectors as ladder_selectors
from ladder.selectors import AuthorEta, AuthorSet, HeadToHead, LadderRow, TestProgress
from tournaments.formats import format_spec
from tournaments.models import DuplicateSet, Tournament, TournamentMatch, current
from tournaments.queueing import queue_snapshot

#: Width of the LLR bar of a version test, in SVG units.
LLR_BAR_WIDTH = 300


@dataclass
class LadderPage:
    game: dict
    rows: list[LadderRow]
    sets_in_flight: int
    recent: list[DuplicateSet]


def ladder_page(*, game_id: str) -> LadderPage:
    the_ladder = ladder_selectors.ladder(game_id=game_id)
    in_flight = ladder_selectors.ladder_sets_in_flight(ladder=the_ladder) if the_ladder else 0
    recent = ladder_selectors.ladder_recent_sets(game_id=game_id).prefetch_related(_set_matches())
    return LadderPage(
        GAMES[game_id].describe(),
        ladder_selectors.ladder_table(game_id=game_id),
        in_flight,
        list(recent),
    )


def _set_matches() -> Prefetch:
    current_matches = TournamentMatch.objects.filter(current()).order_by("first_seat")
    return Prefetch("matches", queryset=current_matches, to_attr="current_matches")


@dataclass
class AuthorPage:
    """A challenge or version test, every figure from the side of ``first`` (the challenger
    or the candidate), whichever seed it has."""

    tournament: Tournament
    first: object
    #: The one opponent, or None for a version test's pool (``opponents`` lists them all).
    second: object
    opponents: list
    result: HeadToHead
    sets: list[AuthorSet]
    test: TestProgress | None = None
    #: Where it stands in the queue, and how long it is expected to take.
    eta: AuthorEta | None = None

    @property
    def llr_marker(self) -> float:
        """Where the LLR sits on a bar from the lower to the upper bound (SVG x)."""
        test = self.test
        assert test is not None
        span = test.upper_bound - test.lower_bound
        share = (min(max(test.llr, test.lower_bound), test.upper_bound) - test.lower_bound) / span
        return round(share * LLR_BAR_WIDTH, 1)


def author_page(*, tournament: Tournament) -> AuthorPage:
    first, opponents = ladder_selectors.author_versions(tournament=tournament)
    test = None
    if format_spec(tournament.format).tests_versions:
        test = ladder_selectors.version_test_progress(tournament=tournament)
    eta = None
    if tournament.status == Tournament.Status.RUNNING:
        eta = ladder_selectors.author_eta(tournament=tournament, snapshot=queue_snapshot())
    return AuthorPage(
        tournament,
        first,
        opponents[0] if len(opponents) == 1 else None,
        opponents,
        ladder_selectors.head_to_head(tournament=tournament),
        ladder_selectors.author_sets(tournament=tournament),
        test,
        eta,
    )
