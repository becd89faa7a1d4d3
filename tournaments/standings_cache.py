"""A tournament's version stamp, and what is computed once per version of it.

What the standings (and a tournament's pages) show changes only when the tournament does:
an entry, the start, a match started or finished, a set settled, an advance, the status.
``tournament_version_row`` reads all of that in one aggregate query; its hash is the
version. A process reuses the version it read for ``VERSION_SECONDS``, so under load a
request costs no query at all and a change shows at most that late. ``cached_for_version``
keeps a value under the version it was computed at, so it is computed again exactly when
the version changes; a renamed bot, which no count sees, shows within ``VALUE_SECONDS``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache
from django.db.models import Count, Max, Q

from matches.models import Match

from .models import DuplicateSet, Tournament, current

VERSION_SECONDS = 1.0
#: Values are keyed by version: an old one is never served, only left to expire.
VALUE_SECONDS = 300

_DONE = [Match.Status.FINISHED, Match.Status.FAILED]

T = TypeVar("T")


def tournament_version_row(*, tournament_id: int) -> tuple[Any, ...] | None:
    """Everything whose change shows on the standings; None if no such tournament."""
    current_links = current("matches__")
    return (
        Tournament.objects.filter(pk=tournament_id)
        .annotate(
            done=Count("matches", filter=current_links & Q(matches__match__status__in=_DONE)),
            running=Count(
                "matches", filter=current_links & Q(matches__match__status=Match.Status.RUNNING)
            ),
            # A set settles after its second match finished, in a later write.
            settled=Count(
                "matches",
                filter=Q(matches__duplicate_set__status=DuplicateSet.Status.FINISHED),
            ),
            last=Max("matches__match__finished_at"),
            total=Count("matches"),
        )
        # created_at tells apart two tournaments given one id (SQLite reuses rolled-back ids).
        .values_list(
            "status",
            "progress",
            "entrant_count",
            "created_at",
            "done",
            "running",
            "settled",
            "last",
            "total",
        )
        .first()
    )


def _version_key(tournament_id: int) -> str:
    return f"tournaments:{tournament_id}:version"


def tournament_version(*, tournament_id: int) -> str | None:
    """A short stamp that changes whenever the standings would; None if no such tournament."""
    key = _version_key(tournament_id)
    version = cache.get(key)
    if version is None:
        row = tournament_version_row(tournament_id=tournament_id)
        if row is None:
            return None
        version = hashlib.sha256(repr(row).encode()).hexdigest()[:16]
        cache.set(key, version, VERSION_SECONDS)
    return version


def tournament_version_forget(*, tournament_id: int) -> None:
    """Read the version again on the next request, as once ``VERSION_SECONDS`` went by."""
    cache.delete(_version_key(tournament_id))


def cached_for_version(
    *, tournament_id: int, version: str, name: str, compute: Callable[[], T]
) -> T:
    """The value ``name`` of the tournament at ``version``, computed if not cached yet."""
    # Names may be URLs: hashed, the key suits every cache backend.
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    key = f"tournaments:{tournament_id}:{version}:{digest}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, VALUE_SECONDS)
    return value
