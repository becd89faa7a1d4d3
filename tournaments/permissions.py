"""Who may organise tournaments and enter bots, written once for the API and the admin.

An organiser is a user with the ``tournaments.add_tournament`` permission (give it to a
group named e.g. "organisers" in the admin); superusers have every permission.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission

from bots.models import BotVersion

ORGANISER_PERMISSION = "tournaments.add_tournament"


def is_organiser(user: Any) -> bool:
    return bool(user and user.is_authenticated and user.has_perm(ORGANISER_PERMISSION))


def can_enter(user: Any, version: BotVersion) -> bool:
    """A bot's owner enters its versions; organisers enter any (built-in bots included)."""
    owner = version.bot.owner_id
    return is_organiser(user) or (owner is not None and user.is_authenticated and owner == user.pk)


class IsOrganiser(BasePermission):
    message = "only organisers do this"

    def has_permission(self, request: Any, view: Any) -> bool:
        return is_organiser(request.user)
