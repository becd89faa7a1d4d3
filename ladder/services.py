"""The ladder's tick, and challenges and version tests created for authors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from bots.models import BotVersion
from bots.services.bots import version_watch_mark
from errors import DomainError
from games.events import ResultReason
from games.rules import GAMES
from matches.models import Match, MatchSeat
from matches.selectors import match_forfeits
from tournaments.config import TournamentConfig
from tournaments.formats import Format, version_test_first_batch
from tournaments.models import Tournament, TournamentMatch
from tournaments.services import tournament_start_with
from tournaments.services.ladder import (
    ladder_entrants_sync,
    ladder_for,
    ladder_sets_start,
    version_test_parameters_set,
)
from tournaments.sprt import SprtParameters

from . import selectors
from .matchmaking import MatchmakingRules, matchmake, pairing_sizes

#: How much of a forfeit's detail a watched version's note quotes.
WATCH_DETAIL = 300
#: Sets a challenge may ask for.
CHALLENGE_SETS = (1, 50)
#: Opponents a version test's pool may hold.
POOL_SIZE = (2, 8)


class AuthorRequestError(DomainError):
    """A challenge or a version test that cannot be made as asked (400, ``invalid``)."""


class DailyLimitReached(AuthorRequestError):
    code = "daily_limit"
    status = 429


def matchmaking_rules() -> MatchmakingRules:
    return MatchmakingRules(
        placement_sets=settings.BAIZE_LADDER_PLACEMENT_SETS,
        pair_cap=settings.BAIZE_LADDER_PAIR_CAP,
        starving_seconds=settings.BAIZE_LADDER_STARVING_MINUTES * 60,
        sets_per_pairing=settings.BAIZE_LADDER_SETS_PER_PAIRING,
    )


def ladder_tick(*, now: datetime | None = None) -> int:
    """Start the ladder sets each game has room for; the number of sets started."""
    now = now or timezone.now()
    return sum(len(ladder_matchmake(game_id=game_id, now=now)) for game_id in GAMES)


def ladder_matchmake(*, game_id: str, now: datetime) -> list[tuple[int, int]]:
    """Pair the game's active ladder versions up to its capacity; the version pairs sent."""
    versions = selectors.ladder_versions(game_id=game_id)
    if len(versions) < 2:
        return []
    ladder = ladder_for(game_id=game_id)
    entrants = ladder_entrants_sync(ladder=ladder, versions=versions)
    views = selectors.ladder_views(ladder=ladder, entrants=entrants, now=now)
    rules = matchmaking_rules()
    free = settings.BAIZE_LADDER_SETS_IN_FLIGHT - selectors.ladder_sets_in_flight(ladder=ladder)
    sizes = pairing_sizes(free, rules)
    if not sizes:
        return []
    recent = selectors.ladder_recent_pairs(ladder=ladder, since=now - _recent_window())
    pairs = matchmake(
        views, recent_pairs=recent, capacity=len(sizes), now=now.timestamp(), rules=rules
    )
    if not pairs or not ladder_sets_start(ladder=ladder, pairs=pairs, sets=sizes[: len(pairs)]):
        return []
    by_entrant = {entrant.pk: entrant.version_id for entrant in entrants}
    return [(by_entrant[a], by_entrant[b]) for a, b in pairs]


def ladder_match_watch(*, match_id: int, reason: str) -> bool:
    """After a match ends (``matches.signals.match_finished``): a ladder match lost by
    forfeit marks the version that forfeited it when it is one of that version's first
    ``BAIZE_WATCHED_MATCHES`` ladder matches, as its upload check would have; True if it
    marked one."""
    if reason != ResultReason.FORFEIT:
        return False
    link = (
        TournamentMatch.objects.filter(match_id=match_id, tournament__format=Format.LADDER)
        .select_related("match")
        .first()
    )
    if link is None:
        return False
    forfeit = match_forfeits(match_ids=[match_id]).get(match_id)
    if forfeit is None:
        return False
    version_id = MatchSeat.objects.values_list("version_id", flat=True).get(
        match_id=match_id, seat=forfeit["seat"]
    )
    ended = link.match.finished_at
    # Its place among the version's finished ladder matches, by when they ended.
    number = (
        Match.objects.filter(
            seats__version_id=version_id,
            tournament_match__tournament__format=Format.LADDER,
            status=Match.Status.FINISHED,
        )
        .filter(Q(finished_at__lt=ended) | Q(finished_at=ended, id__lte=match_id))
        .count()
    )
    detail = str(forfeit["detail"])
    if len(detail) > WATCH_DETAIL:
        detail = f"{detail[:WATCH_DETAIL]}..."
    what = f"{forfeit['reason']} in seat {forfeit['seat']}: {detail}"
    return version_watch_mark(
        version_id=version_id, ladder_match=number, match_id=match_id, what=what
    )


def _recent_window() -> timedelta:
    return timedelta(hours=settings.BAIZE_LADDER_RECENT_HOURS)


def challenge_create(
    *, user: Any, version: BotVersion, opponent: BotVersion, sets: int
) -> Tournament:
    """``sets`` unrated duplicate sets between the caller's ``version`` and ``opponent``."""
    low, high = CHALLENGE_SETS
    if not low <= sets <= high:
        raise AuthorRequestError(f"sets must be from {low} to {high}, got {sets}")
    _check_pair(user, version, opponent, their_own_opponent=False)
    _check_daily_sets(user, sets)
    return _author_tournament(
        user=user,
        name=f"Challenge: {_label(version)} v {_label(opponent)}",
        format=Format.CHALLENGE,
        versions=(version, opponent),
        sets_per_pair=sets,
    )


def version_test_create(
    *,
    user: Any,
    candidate: BotVersion,
    baseline: BotVersion | None = None,
    pool: Sequence[BotVersion] = (),
    parameters: SprtParameters,
) -> Tournament:
    """A sequential test of the caller's ``candidate`` against their ``baseline``, or
    against a ``pool`` of any ready versions of the game (its sets spread evenly over the
    pool, the test reads them as one opponent: the pool's average strength)."""
    opponents = _test_opponents(user, candidate, baseline, pool)
    first_batch = version_test_first_batch(opponents=len(opponents), max_sets=parameters.max_sets)
    _check_daily_sets(user, first_batch * len(opponents))
    against = _label(baseline) if baseline is not None else f"a pool of {len(pool)}"
    with transaction.atomic():
        tournament = _author_tournament(
            user=user,
            name=f"Test: {_label(candidate)} v {against}",
            format=Format.VERSION_TEST,
            versions=(candidate, *opponents),
            sets_per_pair=first_batch,
            before_start=lambda t: version_test_parameters_set(tournament=t, parameters=parameters),
        )
    return tournament


def _test_opponents(
    user: Any, candidate: BotVersion, baseline: BotVersion | None, pool: Sequence[BotVersion]
) -> list[BotVersion]:
    if (baseline is None) == (not pool):
        raise AuthorRequestError("give either a baseline or a pool of opponents, not both")
    if baseline is not None:
        _check_pair(user, candidate, baseline, their_own_opponent=True)
        return [baseline]
    smallest, largest = POOL_SIZE
    if not smallest <= len(pool) <= largest:
        raise AuthorRequestError(f"a pool holds {smallest} to {largest} versions, not {len(pool)}")
    if len({version.pk for version in pool}) != len(pool):
        raise AuthorRequestError("the pool names a version twice")
    for opponent in pool:
        _check_pair(user, candidate, opponent, their_own_opponent=False)
    return list(pool)


def _label(version: BotVersion) -> str:
    return f"{version.bot.name} v{version.number}"


def _check_pair(
    user: Any, mine: BotVersion, other: BotVersion, *, their_own_opponent: bool
) -> None:
    if mine.bot.owner_id != user.pk:
        raise AuthorRequestError(f"{_label(mine)} is not one of your bots")
    if their_own_opponent and other.bot.owner_id != user.pk:
        raise AuthorRequestError(f"{_label(other)} is not one of your bots")
    if mine.pk == other.pk:
        raise AuthorRequestError("a version cannot play itself")
    if mine.bot.game != other.bot.game:
        raise AuthorRequestError(
            f"{_label(mine)} plays {mine.bot.game}, {_label(other)} plays {other.bot.game}"
        )
    for version in (mine, other):
        if version.status != BotVersion.Status.READY:
            raise AuthorRequestError(f"{_label(version)} is {version.status}, not ready to play")


def _check_daily_sets(user: Any, asked: int) -> None:
    limit = settings.BAIZE_AUTHOR_SETS_PER_DAY
    used = selectors.author_sets_since(user=user, since=timezone.now() - timedelta(days=1))
    if used + asked > limit:
        raise DailyLimitReached(
            f"you asked for {used} sets in the last 24 hours; the limit is {limit} a day"
        )


def _author_tournament(
    *,
    user: Any,
    name: str,
    format: Format,
    versions: Sequence[BotVersion],
    sets_per_pair: int,
    before_start: Callable[[Tournament], None] | None = None,
) -> Tournament:
    config = TournamentConfig(
        name=name, game=versions[0].bot.game, format=format, sets_per_pair=sets_per_pair
    )
    return tournament_start_with(
        config=config, versions=versions, organiser=user, before_start=before_start
    )
