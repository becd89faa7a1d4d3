"""Who may do what with a bot, written once: the API and the selectors both ask here."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

from .models import Bot


def can_change_bot(user: User | AnonymousUser, bot: Bot) -> bool:
    """Only a bot's owner changes it (new versions, description); staff may too.

    Built-in bots have no owner: only staff.
    """
    if not user.is_authenticated:
        return False
    return user.is_staff or (bot.owner_id is not None and bot.owner_id == user.pk)


def can_see_private(user: User | AnonymousUser, bot: Bot) -> bool:
    """Rejection reasons and stderr: the owner's debugging output, and staff's."""
    return can_change_bot(user, bot)
