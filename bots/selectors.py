"""Reads of the bots app."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import Bot, BotVersion


def bot_list(*, game: str | None = None, owner: str | None = None) -> QuerySet[Bot]:
    bots = Bot.objects.select_related("owner").prefetch_related("versions")
    if game is not None:
        bots = bots.filter(game=game)
    if owner is not None:
        bots = bots.filter(owner__username=owner)
    return bots


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.order_by("number")
