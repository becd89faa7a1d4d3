"""The audit of manual changes: every change an organiser or admin makes by hand, with why."""

from __future__ import annotations

from typing import Any

from matches.models import Match

from .models import ManualChange, Tournament


def manual_change_record(
    *,
    user: Any,
    action: ManualChange.Action,
    reason: str,
    tournament: Tournament | None = None,
    match: Match | None = None,
    game: str = "",
    detail: dict[str, Any] | None = None,
) -> ManualChange:
    """The audit row of a change made by hand: who, what, why."""
    return ManualChange.objects.create(
        user=user,
        action=action,
        reason=reason,
        tournament=tournament,
        match=match,
        game=game or (tournament.game if tournament else ""),
        detail=detail or {},
    )
