"""Reads of the bots app."""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery
from rest_framework.authtoken.models import Token

from arena.runtimes import RUNTIMES

from .models import Bot, BotVersion
from .services.launch import current_sandbox
from .services.toolchains import runtime_toolchain
from .services.upload import upload_limits


def bot_list(*, game: str | None = None, owner: str | None = None) -> QuerySet[Bot]:
    bots = Bot.objects.select_related("owner").prefetch_related("versions")
    if game is not None:
        bots = bots.filter(game=game)
    if owner is not None:
        bots = bots.filter(owner__username=owner)
    return bots


def current_versions(
    *, game_id: str | None = None, on_ladder: bool | None = None, bot_id: int | None = None
) -> QuerySet[BotVersion]:
    """The current version of each bot: its latest ready one (the one that plays on the
    ladder and that a challenge or a head-to-head names by default); of one game, of the
    bots on or off the ladder, or of one bot. The one statement of "current"."""
    ready = BotVersion.objects.filter(status=BotVersion.Status.READY)
    if game_id is not None:
        ready = ready.filter(bot__game=game_id)
    if on_ladder is not None:
        ready = ready.filter(bot__on_ladder=on_ladder)
    if bot_id is not None:
        ready = ready.filter(bot_id=bot_id)
    latest = BotVersion.objects.filter(bot=OuterRef("bot"), status=BotVersion.Status.READY)
    return ready.filter(number=Subquery(latest.order_by("-number").values("number")[:1]))


def api_token(*, user: Any) -> str | None:
    """The key of the user's API token, or None while they have none."""
    return Token.objects.filter(user=user).values_list("key", flat=True).first()


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.order_by("number")


def runtimes_table() -> list[dict[str, Any]]:
    """Every row of the runtimes table as this server has it: what it takes, builds and
    runs, whether it is available here (and why not) and its toolchain's exact versions."""
    statuses = current_sandbox().runtimes()
    rows = []
    for name, runtime in RUNTIMES.items():
        status = statuses[name]
        rows.append(
            {
                "name": name,
                "title": runtime.title,
                "expects": runtime.expects,
                "build": runtime.build,
                "run": list(runtime.run),
                "available": status.available,
                "missing": status.missing,
                "toolchain": list(runtime_toolchain(status)),
                "address_space_limit": runtime.address_space_limit,
                "processes": runtime.processes,
                "upload_limits": vars(upload_limits(runtime)),
                "notes": runtime.notes,
            }
        )
    return rows
