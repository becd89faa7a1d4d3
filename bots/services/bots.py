"""Bots: an author's bots, the built-in bots, and the mark of a version's watched matches."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from arena.runner import BUILTIN_DIR
from arena.text import storable_text
from errors import InvalidFields
from games.rules import get_game

from ..models import Bot, BotVersion

#: Built-in bots of every game, by bot name: the strategy each runs.
BUILTIN_STRATEGIES: dict[str, str] = {"random": "random", "heuristic": "{game}_heuristic"}


def bot_create(
    *, owner: User, game_id: str, name: str, description: str = "", on_ladder: bool = True
) -> Bot:
    """A new bot of ``owner``; ``InvalidFields`` for an unknown game or a taken name."""
    try:
        get_game(game_id)
    except ValueError as error:
        raise InvalidFields({"game": str(error)}) from None
    taken = InvalidFields({"name": f"a {game_id} bot named {name!r} exists already"})
    # The unique constraint decides a race between two requests; this check words it.
    if Bot.objects.filter(game=game_id, name=name).exists():
        raise taken
    try:
        with transaction.atomic():
            return Bot.objects.create(
                owner=owner, game=game_id, name=name, description=description, on_ladder=on_ladder
            )
    except IntegrityError:
        raise taken from None


def bot_update(*, bot: Bot, description: str | None = None, on_ladder: bool | None = None) -> Bot:
    """Change the fields given (``None``: leave it as it is) in one update."""
    given = {"description": description, "on_ladder": on_ladder}
    changes = {name: value for name, value in given.items() if value is not None}
    if changes:
        Bot.objects.filter(id=bot.id).update(**changes)
    bot.refresh_from_db()
    return bot


def builtin_strategy_names(game_id: str) -> dict[str, str]:
    """Bot name -> strategy module for the built-in bots that exist for ``game_id``."""
    names = {name: strategy.format(game=game_id) for name, strategy in BUILTIN_STRATEGIES.items()}
    return {
        name: strategy
        for name, strategy in names.items()
        if (BUILTIN_DIR / "strategies" / f"{strategy}.py").is_file()
    }


def _builtin_hash(strategy: str) -> str:
    digest = hashlib.sha256()
    for path in (BUILTIN_DIR / "main.py", BUILTIN_DIR / "strategies" / f"{strategy}.py"):
        digest.update(path.read_bytes())
    return digest.hexdigest()


@transaction.atomic
def builtin_bots_sync(*, game_id: str) -> list[BotVersion]:
    """The current version of each built-in bot of ``game_id``, created when its code changed."""
    get_game(game_id)
    return [
        builtin_bot_version(
            game_id=game_id, name=name, strategy=strategy, description=f"Built-in: {strategy}"
        )
        for name, strategy in builtin_strategy_names(game_id).items()
    ]


@transaction.atomic
def builtin_bot_version(
    *, game_id: str, name: str, strategy: str, description: str = ""
) -> BotVersion:
    """The current version of the built-in bot ``name`` of ``game_id`` that plays ``strategy``
    (``arena/builtin/strategies``): the bot created if there is none, a version if its code
    changed. ``builtin_bots_sync`` keeps the game's own; the benches name more of them."""
    bot, _ = Bot.objects.get_or_create(
        game=game_id, name=name, defaults={"description": description}
    )
    content_hash = _builtin_hash(strategy)
    latest = bot.versions.order_by("-number").first()
    if latest is None or latest.content_hash != content_hash:
        latest = BotVersion.objects.create(
            bot=bot,
            number=(latest.number + 1) if latest else 1,
            builtin=strategy,
            content_hash=content_hash,
            status=BotVersion.Status.READY,
            plays_series=True,  # the built-in bots' main.py plays series
        )
    return latest


def version_watch_mark(*, version_id: int, ladder_match: int, match_id: int, what: str) -> bool:
    """Mark a version that forfeited its ``ladder_match``-th ladder match (``match_id``),
    saying ``what`` happened, if that is one of its first ``BAIZE_WATCHED_MATCHES``; True
    if this marked it. The first mark stands: a later forfeit, or the same one reported
    again, changes nothing."""
    watched = settings.BAIZE_WATCHED_MATCHES
    if not 1 <= ladder_match <= watched:
        return False
    where = f"ladder match {ladder_match} of {watched} watched (match {match_id})"
    # ``what`` quotes the forfeit's detail, which quotes the bot's reply (escaped there).
    note = storable_text(f"forfeited its {where}: {what}")
    # Conditional update: two of its matches ending at once on two workers mark it once.
    marked = BotVersion.objects.filter(id=version_id, watch_note="").update(watch_note=note)
    return marked == 1
