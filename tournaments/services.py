"""Tournament writes: creating a round robin, enqueueing its matches, finishing it."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from bots.models import BotVersion
from bots.services import match_seats_create
from games.models import Match
from games.rules.decks import MAX_SEED
from games.services import match_create

from .formats import round_robin_rounds
from .models import Entrant, Tournament, TournamentMatch


class TournamentError(ValueError):
    """A tournament request that cannot be carried out; the message says why."""


def set_seed(tournament_seed: int, set_index: int) -> int:
    """The deal seed of one duplicate set: derived, so the tournament seed fixes every deal."""
    digest = hashlib.sha256(f"baize-set:{tournament_seed}:{set_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED


def round_robin_create(
    *,
    name: str,
    game_id: str,
    versions: Sequence[BotVersion],
    options: dict[str, Any] | None = None,
    sets_per_pair: int = 1,
    seed: int | None = None,
    decision_timeout: float = 1.0,
    enqueue: bool = True,
) -> Tournament:
    """A running round robin: each pair plays ``sets_per_pair`` duplicate sets, enqueued on commit.

    Every set is two matches on one seed with the seats swapped, so both bots get the same
    cards. ``ValueError`` (before anything is stored) for bad options or entrants. With
    ``enqueue=False`` the caller sends the matches itself (``tournament_matches_enqueue``).
    """
    _check_entrants(game_id, versions)
    if sets_per_pair < 1:
        raise TournamentError("sets_per_pair must be at least 1")
    seed = secrets.randbits(63) if seed is None else seed
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            game=game_id,
            options=options or {},
            sets_per_pair=sets_per_pair,
            seed=seed,
            decision_timeout=decision_timeout,
            status=Tournament.Status.RUNNING,
            started_at=timezone.now(),
        )
        entrants = [
            Entrant(tournament=tournament, version=version, position=position)
            for position, version in enumerate(versions, start=1)
        ]
        Entrant.objects.bulk_create(entrants)
        match_ids = _schedule_round_robin(tournament, list(versions))
        if enqueue:
            transaction.on_commit(lambda: tournament_matches_enqueue(match_ids=match_ids))
    return tournament


def _check_entrants(game_id: str, versions: Sequence[BotVersion]) -> None:
    if len(versions) < 2:
        raise TournamentError("a round robin needs at least two bot versions")
    if len({version.pk for version in versions}) != len(versions):
        raise TournamentError("a bot version can enter a tournament only once")
    wrong = [str(version) for version in versions if version.bot.game != game_id]
    if wrong:
        raise TournamentError(f"these bots play another game than {game_id!r}: {wrong}")


def _schedule_round_robin(tournament: Tournament, versions: list[BotVersion]) -> list[int]:
    match_ids = []
    set_index = 0
    for round_number, pairs in enumerate(round_robin_rounds(versions), start=1):
        for first, second in pairs:
            for _ in range(tournament.sets_per_pair):
                seed = set_seed(tournament.seed, set_index)
                for seats in ((first, second), (second, first)):
                    match = match_create(
                        game_id=tournament.game, seed=seed, options=tournament.options
                    )
                    match_seats_create(match=match, versions=seats)
                    TournamentMatch.objects.create(
                        tournament=tournament, match=match, round=round_number, set_number=set_index
                    )
                    match_ids.append(match.pk)
                set_index += 1
    return match_ids


def tournament_matches_enqueue(
    *, match_ids: Sequence[int], on_sent: Callable[[int], None] | None = None
) -> None:
    """Send one task per match (run at once when no broker is configured)."""
    from .tasks import tournament_match_play  # tasks import this module

    for match_id in match_ids:
        tournament_match_play.delay(match_id)
        if on_sent is not None:
            on_sent(match_id)


def tournament_progress(*, tournament_id: int) -> bool:
    """Finish the tournament once none of its matches is left to play; True if this call did."""
    unfinished = Match.objects.filter(tournament_match__tournament_id=tournament_id).exclude(
        status__in=[Match.Status.FINISHED, Match.Status.FAILED]
    )
    if unfinished.exists():
        return False
    # Conditional update: of two workers finishing the last matches at once, one wins.
    updated = Tournament.objects.filter(id=tournament_id, status=Tournament.Status.RUNNING).update(
        status=Tournament.Status.FINISHED, finished_at=timezone.now()
    )
    return updated == 1
