"""The capacity run's workload: sandboxed matches whose bots wait on the wall clock.

Two uploads of one small Python bot, each answering every decision with its first legal
action after sleeping ``think`` seconds, play a round robin of Snag: one pairing, ``sets``
duplicate sets, every match on the same stacked decks. Both seats play the same strategy on
the same cards, so every match of the run is the same match (the same decisions, the same
number of deals) and lasts the same time: a worker's rate is the coordination's, not the
luck of the deal's, and a 2-CPU machine measures what the shared parts cost rather than the
bots (their decisions cost a few tens of microseconds of CPU each).

Everything is written through the apps' services, as an author and an organiser would.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from bots.models import BotVersion
from bots.services.accounts import user_sign_up
from bots.services.bots import bot_create
from bots.services.upload import bot_version_upload
from games.rules import get_game
from games.rules.decks import seeded_order
from tournaments.models import Tournament, TournamentMatch
from tournaments.services import round_robin_create
from tournaments.services.scheduling import tournament_matches_enqueue

GAME = "snag"
#: The matches' target: 3 deals (75 decisions) on the workload's decks.
TARGET = 15
#: The stacked decks' seed: any one; its match must end within the decks stacked.
DECK_SEED = 1
#: More deals than any Snag match to the default target takes (its deals score 1 point or more).
MAX_DEALS = 60

#: The bot: its first legal action, after ``think`` seconds asleep; it plays series.
SLEEPING_BOT = """\
\"\"\"Baize's capacity run: the first legal action, after {think} s asleep.\"\"\"

import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({{"type": "ready", "series": True}}), flush=True)
    elif message["type"] == "decide":
        time.sleep({think})
        print(json.dumps({{"action": message["observation"]["legal_actions"][0]}}), flush=True)
"""


def sleeping_bot(think: float) -> bytes:
    return SLEEPING_BOT.format(think=repr(float(think))).encode()


def stacked_decks(target: int = TARGET) -> list[list[str]]:
    """The decks of the workload's match: as many as its deals, each a seeded order."""
    game = get_game(GAME)
    orders = [list(seeded_order(game.deck, DECK_SEED, k)) for k in range(MAX_DEALS)]
    state = game.new_match(0, {"decks": orders, "target": target})
    while state.to_play is not None:
        state = game.apply(state, state.legal_actions()[0])
    return orders[: len(state.orders)]


def workload_options(target: int = TARGET) -> dict:
    return {"target": target, "decks": stacked_decks(target)}


def workload_decisions(target: int = TARGET) -> int:
    """The decisions of the workload's match (the same in every match of the run)."""
    game = get_game(GAME)
    state, decisions = game.new_match(0, workload_options(target)), 0
    while state.to_play is not None:
        state, decisions = game.apply(state, state.legal_actions()[0]), decisions + 1
    return decisions


def workload_versions(*, think: float) -> list[BotVersion]:
    """Two uploads of the sleeping bot by a new author, their checks queued."""
    user, _ = user_sign_up(username=f"capacity-{secrets.token_hex(4)}", password=_password())
    code = sleeping_bot(think)
    versions = []
    for name in ("sleeper-a", "sleeper-b"):
        bot = bot_create(owner=user, game_id=GAME, name=f"{user.username}-{name}", on_ladder=False)
        versions.append(bot_version_upload(bot=bot, filename="bot.py", data=code))
    return versions


def _password() -> str:
    return secrets.token_urlsafe(24)


def versions_checked(versions: Sequence[BotVersion]) -> dict[int, str]:
    """Each version's status now (``ready`` once its check passed)."""
    ids = [version.pk for version in versions]
    return dict(BotVersion.objects.filter(id__in=ids).values_list("id", "status"))


def workload_tournament(
    *, versions: Sequence[BotVersion], sets: int, target: int = TARGET, name: str
) -> Tournament:
    """The round robin of one run, started with its matches created but not sent."""
    return round_robin_create(
        name=name,
        game_id=GAME,
        versions=list(versions),
        options=workload_options(target),
        sets_per_pair=sets,
        secret=f"capacity-{name}",
        enqueue=False,
    )


def workload_send(*, tournament: Tournament) -> list[int]:
    """Send the tournament's matches to the workers, as its start would have; their ids."""
    match_ids = list(
        TournamentMatch.objects.filter(tournament=tournament)
        .order_by("duplicate_set__number", "first_seat")
        .values_list("match_id", flat=True)
    )
    tournament_matches_enqueue(match_ids=match_ids)
    return match_ids
