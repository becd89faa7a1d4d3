"""Writes for the ladder app: each game's ladder, its entrants and sets, and version tests.

The ladder decides who plays whom (its matchmaker) and what authors may ask for; these
functions record its decisions, so the tournament rows keep one writer.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from bots.models import BotVersion
from games.rules import get_game

from ..config import TournamentConfig
from ..formats import Format
from ..models import Entrant, Tournament, VersionTest
from ..sprt import SprtParameters
from . import tournament_create
from .entrants import entrant_add
from .scheduling import ladder_pairings_add, tournament_matches_enqueue


def ladder_for(*, game_id: str) -> Tournament:
    """The game's ladder, made on first use: a tournament that runs for ever."""
    ladder = Tournament.objects.filter(game=game_id, format=Format.LADDER).first()
    if ladder is not None:
        return ladder
    secret = secrets.token_hex(32)
    try:
        with transaction.atomic():
            config = TournamentConfig(
                name=f"{get_game(game_id).name} ladder", game=game_id, format=Format.LADDER
            )
            ladder = tournament_create(config=config, secret=secret)
            Tournament.objects.filter(id=ladder.pk).update(
                status=Tournament.Status.RUNNING, started_at=timezone.now()
            )
    except IntegrityError:  # another tick made it first (one ladder per game)
        pass
    return Tournament.objects.get(game=game_id, format=Format.LADDER)


def ladder_entrants_sync(*, ladder: Tournament, versions: Sequence[BotVersion]) -> list[Entrant]:
    """The ladder's entrants of ``versions``, entering those that are new to it."""
    known = {e.version_id: e for e in Entrant.objects.filter(tournament=ladder)}
    for version in versions:
        if version.pk in known:
            continue
        try:
            known[version.pk] = entrant_add(tournament=ladder, version=version)
        except IntegrityError:  # entered by a tick racing this one
            known[version.pk] = Entrant.objects.get(tournament=ladder, version=version)
    return [known[version.pk] for version in versions]


def ladder_sets_start(
    *, ladder: Tournament, pairs: Sequence[tuple[int, int]], sets: Sequence[int]
) -> bool:
    """A pairing for each pair of entrants ``(first, second)`` with the matching number of
    ``sets``, their matches sent once the transaction commits; False if another tick paired
    from the same reading first."""
    with transaction.atomic():
        # Conditional update: two ticks at once read the same free versions; only the one
        # that moves the ladder's progress on pairs them.
        moved = Tournament.objects.filter(id=ladder.pk, progress=ladder.progress).update(
            progress=F("progress") + 1
        )
        if moved != 1:
            return False
        match_ids = ladder_pairings_add(tournament_id=ladder.pk, pairs=pairs, sets=sets)
        transaction.on_commit(lambda: tournament_matches_enqueue(match_ids=match_ids))
    return True


def version_test_parameters_set(
    *, tournament: Tournament, parameters: SprtParameters
) -> VersionTest:
    """The sequential test's parameters for ``tournament``, before it starts."""
    return VersionTest.objects.create(
        tournament=tournament,
        elo0=parameters.elo0,
        elo1=parameters.elo1,
        alpha=parameters.alpha,
        beta=parameters.beta,
        max_sets=parameters.max_sets,
    )
