"""Who may see what of a match: the one place every endpoint, page and export asks.

Three views of one log (``docs/visibility.md``):

- ``public`` (anyone): what a spectator at the table sees. While the match's deal is in
  play (any match dealt from its seed is unfinished) that leaves out the seed, the shuffle
  orders, every card still face down, and all moves of a match that is over while its
  twin still plays; once no match of the deal is in play, everything is public.
- ``seat0`` / ``seat1`` (the owner of that seat's bot, and staff): what that seat's bot
  was sent, step by step, also while the match runs.
- ``full`` (anyone once the deal is out of play; staff at any time): the log as stored.

The pure rule is in ``matches.redaction``; this module decides which lens a request gets.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from errors import DomainError, NotAllowed

from .models import Match
from .redaction import Lens

_UNFINISHED = (Match.Status.PENDING, Match.Status.RUNNING)


class View(enum.StrEnum):
    PUBLIC = "public"
    SEAT0 = "seat0"
    SEAT1 = "seat1"
    FULL = "full"

    @property
    def seat(self) -> int | None:
        return {View.SEAT0: 0, View.SEAT1: 1}.get(self)


#: The views' names, as the API's schema lists them.
VIEW_CHOICES = [view.value for view in View]


@dataclass(frozen=True)
class MatchAccess:
    """The lens a viewer gets on one match, and the views they may ask for."""

    match: Match
    view: View
    lens: Lens
    allowed: tuple[View, ...]
    #: A match dealt these cards is unfinished: a fact about the match, the same in every view.
    deal_in_play: bool

    @property
    def deal_withheld(self) -> bool:
        """This view leaves out the seed and stacked decks (the deal is in play and the
        view is not ``full``)."""
        return self.lens.deal_in_play


def deals_in_play(matches: Iterable[Match]) -> set[tuple[str, int]]:
    """The ``(game, seed)`` of those ``matches`` whose deal some match still has in play."""
    keys = {(match.game, match.seed) for match in matches}
    if not keys:
        return set()
    games = {game for game, _ in keys}
    seeds = {seed for _, seed in keys}
    rows = Match.objects.filter(game__in=games, seed__in=seeds, status__in=_UNFINISHED)
    return keys & set(rows.values_list("game", "seed"))


def deal_in_play(match: Match) -> bool:
    return bool(deals_in_play([match]))


def match_access(*, match: Match, user: User | AnonymousUser, view: str | None) -> MatchAccess:
    """The lens ``user`` gets on ``match`` for the ``view`` asked (default ``public``).

    ``DomainError`` for a view that does not exist, ``NotAllowed`` for one the user may not use.
    """
    asked = _parse_view(view)
    # One query each, shared by the views allowed and the lens.
    in_play = deal_in_play(match)
    owned = _owned_seats(match, user)
    allowed = _views_allowed(user, owned, in_play)
    if asked not in allowed:
        raise NotAllowed(_refusal(match, asked, user), field="view")
    private = frozenset({0, 1}) if user.is_staff else frozenset(owned)
    if asked is View.FULL:
        lens = Lens(private_seats=private)
    else:
        lens = Lens(
            seat=asked.seat,
            deal_in_play=in_play,
            moves_withheld=in_play and match.status not in _UNFINISHED,
            private_seats=private,
        )
    return MatchAccess(match, asked, lens, allowed, deal_in_play=in_play)


def _views_allowed(user: User | AnonymousUser, owned: set[int], in_play: bool) -> tuple[View, ...]:
    """The views a user may ask for, ``public`` first."""
    staff = bool(user.is_staff)
    allowed = [View.PUBLIC]
    allowed += [view for view in (View.SEAT0, View.SEAT1) if staff or view.seat in owned]
    if staff or not in_play:
        allowed.append(View.FULL)
    return tuple(allowed)


def _parse_view(view: str | None) -> View:
    try:
        return View(view or View.PUBLIC)
    except ValueError:
        choices = ", ".join(item.value for item in View)
        raise DomainError(f"no view {view!r}; the views are {choices}", field="view") from None


def _refusal(match: Match, view: View, user: User | AnonymousUser) -> str:
    """Why ``user`` may not use ``view``, in words that say what would let them (a page
    shows it as it is; the API as the refusal's detail)."""
    if view is View.FULL:
        return (
            f"the full log of match {match.pk} is shown once no match dealt its cards is in"
            " play; until then staff only"
        )
    seat = view.seat
    if not user.is_authenticated:
        return (
            f"sign in to see seat {seat}'s view: only the owner of the bot in seat {seat}"
            " and staff see it"
        )
    owner = match.seats.filter(seat=seat).values_list("version__bot__owner_id", flat=True)
    if owner.first() is None:
        return f"seat {seat} holds a built-in bot: only staff see that seat's view"
    return (
        f"seat {seat} belongs to another author: only the owner of its bot and staff see"
        " that seat's view"
    )


def _owned_seats(match: Match, user: User | AnonymousUser) -> set[int]:
    if not user.is_authenticated:
        return set()
    seats = match.seats.filter(version__bot__owner_id=user.pk).values_list("seat", flat=True)
    return set(seats)


def match_fields(match: Match, *, deal_in_play: bool) -> dict[str, Any]:
    """The seed and options of a match as a viewer may see them."""
    if not deal_in_play:
        return {"seed": match.seed, "options": match.options}
    options = {key: value for key, value in match.options.items() if key != "decks"}
    return {"seed": None, "options": options}
