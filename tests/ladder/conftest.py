"""Ladder fixtures: authors with bots that play the built-in strategies, and playing in
this process what a worker would."""

from __future__ import annotations

from django.contrib.auth.models import User

from bots.models import BotVersion
from ladder.services import challenge_create, ladder_for, ladder_tick
from matches.models import Match
from tests.tournaments.conftest import settle_without_playing, strategy_bots
from tournaments.models import DuplicateSet, Pairing, Tournament
from tournaments.ratings.maths import PRIOR
from tournaments.ratings.models import Leaderboard, Rating
from tournaments.services.scheduling import tournament_advance
from tournaments.tasks import tournament_match_play


def bots_of(owner: User, count: int, game: str = "snag"):
    """``count`` ready versions of bots owned by ``owner``: heuristic, random, heuristic..."""
    return strategy_bots(count, game=game, owner=owner)


def play_pending(tournament: Tournament, limit: int = 2000) -> int:
    """Play the tournament's pending current matches here, as a worker would; how many."""
    played = 0
    for _ in range(limit):
        pending = list(
            Match.objects.filter(
                tournament_match__tournament=tournament,
                tournament_match__replaced_at__isnull=True,
                status=Match.Status.PENDING,
            ).values_list("id", flat=True)
        )
        if not pending:
            break
        for match_id in pending:
            tournament_match_play(match_id)
            played += 1
    return played


#: Snag to 10 points: short matches for the tests that play many.
SHORT = {"target": 10}


def ladder_played(*owners: User, ticks: int) -> Tournament:
    """Snag's ladder with two bots of each owner, ``ticks`` ticks played to their end."""
    for owner in owners:
        bots_of(owner, 2)
    ladder = ladder_for(game_id="snag")
    Tournament.objects.filter(pk=ladder.pk).update(options=SHORT)
    for _ in range(ticks):
        ladder_tick()
        play_pending(ladder)
    return ladder


def rate(version: BotVersion, *, above_new: bool) -> None:
    """Rate ``version`` above (or below) an unrated one, which decides who is seed 1."""
    conservative = PRIOR.conservative + (10 if above_new else -10)
    board, _ = Leaderboard.objects.get_or_create(game=version.bot.game)
    Rating.objects.create(
        leaderboard=board, version=version, mu=conservative + 3, sigma=1, conservative=conservative
    )


def settle_for(duplicate_set: DuplicateSet, version: BotVersion, *, won: bool) -> None:
    """Record the set as won (or lost) by ``version`` 2-0, 40 points to 5, on whichever
    side of the pairing it sits."""
    first_side = duplicate_set.pairing.first.version_id == version.pk
    winner_first = first_side == won
    wins, points = ((2, 0), (40, 5)) if winner_first else ((0, 2), (5, 40))
    settle_without_playing(duplicate_set, *wins, points=points)


def settled_challenge(
    challenger: BotVersion, opponent: BotVersion, *, challenger_seed: int, won: bool, sets: int
) -> Tournament:
    """A finished challenge of ``sets`` sets, every one won (or lost) by ``challenger``, who
    is seed ``challenger_seed`` of the pairing: the opponent is rated above it, or below."""
    rate(opponent, above_new=challenger_seed == 2)
    challenge = challenge_create(
        user=challenger.bot.owner, version=challenger, opponent=opponent, sets=sets
    )
    pairing = Pairing.objects.get(tournament=challenge)
    assert (pairing.first.version_id == challenger.pk) == (challenger_seed == 1)
    for duplicate_set in DuplicateSet.objects.filter(pairing=pairing).select_related("pairing"):
        settle_for(duplicate_set, challenger, won=won)
    tournament_advance(tournament_id=challenge.pk)
    challenge.refresh_from_db()
    assert challenge.status == Tournament.Status.FINISHED
    return challenge


def win_until_decided(test: Tournament, candidate: BotVersion) -> None:
    """Record the version test's sets as won by ``candidate``, the first waiting set each
    time, until the test decides: the rest of its batch is then left unplayed."""
    while Tournament.objects.get(pk=test.pk).status == Tournament.Status.RUNNING:
        waiting = DuplicateSet.objects.filter(pairing__tournament=test, status="playing")
        settle_for(
            waiting.select_related("pairing").order_by("number").first(), candidate, won=True
        )
        tournament_advance(tournament_id=test.pk)


from tests.tournaments.conftest import celery_workers, committed_db  # noqa: E402, F401
