"""Tournaments for the page tests, played in this process without bot subprocesses.

``match_play_here`` writes a match's log exactly as the runner would (the contracts'
events, in order) with random legal actions chosen here, then marks the match finished,
as ``matches.play.match_play`` does; the tournaments app then settles and advances as
after any match. Real bots play where the test is about playing (the browser tests).
"""

from __future__ import annotations

import random

from django.utils import timezone

from bots.models import Bot, BotVersion
from games.rules import get_game
from matches.models import Match
from matches.services import match_claim, match_event_writer
from tournaments.config import TournamentConfig
from tournaments.services import (
    tournament_create,
    tournament_enter,
    tournament_schedule,
    tournament_start,
)
from tournaments.services.scheduling import tournament_match_settle


def bot_versions(count: int, *, game_id: str = "snag", prefix: str = "bot") -> list[BotVersion]:
    """``count`` ready built-in versions of distinct bots (random and heuristic in turn)."""
    strategies = ["random", f"{game_id}_heuristic"]
    versions = []
    for number in range(count):
        bot = Bot.objects.create(game=game_id, name=f"{prefix}-{number + 1}")
        versions.append(
            BotVersion.objects.create(
                bot=bot,
                number=1,
                builtin=strategies[number % 2],
                content_hash=f"{number:064x}",
                status=BotVersion.Status.READY,
            )
        )
    return versions


def tournament_started(
    versions: list[BotVersion], *, format: str = "round_robin", name: str = "Test cup", **options
):
    """A running tournament of ``versions`` whose first round is created but not played."""
    config = TournamentConfig(name=name, game=versions[0].bot.game, format=format, **options)
    tournament = tournament_create(config=config, secret="web-tests")
    for version in versions:
        tournament_enter(tournament=tournament, version=version)
    tournament_schedule(tournament=tournament, starts_at=timezone.now())
    tournament_start(tournament_id=tournament.pk, enqueue=False)
    tournament.refresh_from_db()
    return tournament


def pending_matches(tournament) -> list[int]:
    return list(
        Match.objects.filter(
            tournament_match__tournament=tournament, status=Match.Status.PENDING
        ).values_list("id", flat=True)
    )


def play_out(tournament, *, limit: int | None = None) -> int:
    """Play the tournament's pending matches, and the ones each round adds; how many played."""
    played = 0
    while (pending := pending_matches(tournament)) and (limit is None or played < limit):
        for match_id in pending[: None if limit is None else limit - played]:
            match_play_here(match_id)
            tournament_match_settle(match_id=match_id)
            played += 1
    tournament.refresh_from_db()
    return played


def match_play_here(match_id: int, *, rng_seed: int | None = None) -> Match:
    """Play a pending match to its end with random legal actions, logged as the runner does."""
    match_claim(match_id=match_id, worker="factory")
    match = Match.objects.get(id=match_id)
    game = get_game(match.game)
    state = game.new_match(match.seed, match.options)
    rng = random.Random(match_id if rng_seed is None else rng_seed)
    with match_event_writer(match=match, players=_players(match)) as writer:
        _emit_shuffles(writer, state, 0)
        while state.to_play is not None:
            seat, action, known = (
                state.to_play,
                rng.choice(state.legal_actions()),
                len(state.orders),
            )
            state = game.apply(state, action)
            writer.emit("decision", {"seat": seat, "action": action, "think_us": 100})
            _emit_shuffles(writer, state, known)
        result = {"winner": state.winner, "scores": state.scores, "reason": "played"}
        writer.emit("match_finished", result)  # finishes the match's row with its last event
    match.refresh_from_db()
    return match


def _players(match: Match) -> list[dict]:
    seats = match.seats.select_related("version__bot").order_by("seat")
    return [
        {
            "seat": seat.seat,
            "bot": str(seat.version.bot),
            "version_id": seat.version_id,
            "content_hash": seat.version.content_hash,
        }
        for seat in seats
    ]


def _emit_shuffles(writer, state, known: int) -> None:
    for k in range(known, len(state.orders)):
        writer.emit("shuffle", {"k": k, "order": list(state.orders[k])})
