"""The match API: matches (``?mine=true``), a match, its event log (in pages, or whole as a
JSON-lines file), its replayed state, a seat's stderr.

Every response goes through ``matches.visibility``: ``?view=public`` (the default),
``seat0``/``seat1`` or ``full``, each shown only to whom it may be.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.permissions import can_see_private
from errors import DomainError
from games.events import canonical_json

from . import selectors
from .models import Match
from .serializers import (
    MatchAccessSerializer,
    MatchEventSerializer,
    MatchSerializer,
    ReplayStepSerializer,
    SeatStderrSerializer,
)
from .visibility import VIEW_CHOICES, MatchAccess, deals_in_play, match_access

VIEW_PARAMETER = OpenApiParameter(
    "view",
    str,
    enum=VIEW_CHOICES,
    description="public (anyone; the default), seat0/seat1 (that seat's bot's owner and staff),"
    " full (anyone once no match dealt these cards is in play; staff at any time).",
)


def _access(request: Request, pk: int) -> MatchAccess:
    match = get_object_or_404(Match.objects.prefetch_related("seats__version__bot"), pk=pk)
    return match_access(match=match, user=request.user, view=request.query_params.get("view"))


#: The query parameters of ``?mine=true``'s filters, each read from the side of your seat.
MINE_PARAMETERS = [
    OpenApiParameter(
        "mine",
        bool,
        description="true: only matches in which a version of one of your bots sits"
        " (needs a login).",
    ),
    OpenApiParameter(
        "version", int, description="With mine=true: your seat holds this version (its id)."
    ),
    OpenApiParameter(
        "opponent", int, description="With mine=true: the other seat holds a version of this bot."
    ),
    OpenApiParameter(
        "result",
        str,
        enum=list(selectors.RESULTS),
        description="With mine=true: your seat won, lost or drew the match (finished ones).",
    ),
]


@extend_schema(parameters=MINE_PARAMETERS)
class MatchListApi(generics.ListAPIView):
    """Matches, newest first, as anyone may see them (``MatchSerializer``), paginated."""

    serializer_class = MatchSerializer
    #: The parameters only ``mine=true`` takes; a subclass adding filters adds to them.
    mine_only: tuple[str, ...] = ("version", "opponent", "result")

    def get_queryset(self) -> QuerySet[Match]:
        mine = _flag(self.request, "mine")
        if not mine:
            for name in self.mine_only:
                if name in self.request.query_params:
                    raise DomainError("filters only your matches: give mine=true", field=name)
            return selectors.match_list(owner=None)
        if not self.request.user.is_authenticated:
            raise NotAuthenticated("log in to list the matches of your bots (?mine=true)")
        user = self.request.user
        version_id = _id_parameter(self.request, "version")
        if version_id is not None and not selectors.owns_version(owner=user, version_id=version_id):
            raise DomainError(f"{version_id} is not a version of your bots", field="version")
        opponent = _id_parameter(self.request, "opponent")
        if opponent is not None and not selectors.bot_exists(bot_id=opponent):
            raise DomainError(f"no bot {opponent}", field="opponent")
        result = self.request.query_params.get("result")
        if result is not None and result not in selectors.RESULTS:
            raise DomainError(
                f"must be one of {', '.join(selectors.RESULTS)}, got {result[:20]!r}",
                field="result",
            )
        matches = selectors.match_list(
            owner=user, version_id=version_id, opponent_bot_id=opponent, result=result
        )
        return self.narrow_mine(matches)

    def narrow_mine(self, matches: QuerySet[Match]) -> QuerySet[Match]:
        """The caller's matches narrowed by a layer above's own filters (none here)."""
        return matches

    def get_serializer(self, *args, **kwargs):
        # One query says whose seed is withheld on the whole page.
        if args and isinstance(args[0], list):
            context = {**self.get_serializer_context(), "deals_in_play": deals_in_play(args[0])}
            kwargs["context"] = context
        return super().get_serializer(*args, **kwargs)


def _flag(request: Request, name: str) -> bool:
    raw = request.query_params.get(name, "false").lower()
    if raw not in ("true", "false", "1", "0"):
        raise DomainError(f"must be true or false, got {raw[:20]!r}", field=name)
    return raw in ("true", "1")


def _id_parameter(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
        raise DomainError(f"must be an id (a positive integer), got {raw[:20]!r}", field=name)
    return int(raw)


class MatchDetailApi(APIView):
    #: The shape of the answer; a layer above adds what it knows of a match (its tournament).
    serializer_class = MatchAccessSerializer

    @extend_schema(parameters=[VIEW_PARAMETER], responses=MatchAccessSerializer)
    def get(self, request: Request, pk: int) -> Response:
        access = _access(request, pk)
        match = access.match
        match.view, match.views = access.view.value, [view.value for view in access.allowed]
        match.score_parts = selectors.match_score_parts_visible(access=access)
        return Response(self.serializer_class(match, context={"access": access}).data)


@extend_schema(parameters=[VIEW_PARAMETER])
class MatchEventListApi(generics.ListAPIView):
    """The match's event log in order, as the view shows it, paginated (``limit``, ``offset``)."""

    serializer_class = MatchEventSerializer

    def get_queryset(self) -> list[dict]:
        return selectors.match_events_visible(access=_access(self.request, self.kwargs["pk"]))


#: The media type of a log file: one JSON object a line (JSON Lines, also called NDJSON).
LOG_MEDIA_TYPE = "application/x-ndjson"


class MatchLogApi(APIView):
    """The match's whole event log as the view shows it, as a file to download: JSON lines,
    one event a line (``seq``, ``type``, ``payload``, ``hash``, and ``redacted`` where this
    view withholds part of it), in order. ``manage.py play --replay`` plays it again."""

    @extend_schema(
        parameters=[VIEW_PARAMETER],
        responses={(200, LOG_MEDIA_TYPE): OpenApiTypes.BINARY},
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        access = _access(request, pk)
        events = selectors.match_events_visible(access=access)
        body = "".join(canonical_json(_log_line(event)) + "\n" for event in events)
        response = HttpResponse(body.encode(), content_type=f"{LOG_MEDIA_TYPE}; charset=utf-8")
        name = f"match-{access.match.pk}-{access.view.value}.jsonl"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


def _log_line(event: dict) -> dict:
    line = {key: event[key] for key in ("seq", "type", "payload", "hash")}
    if event.get("redacted"):
        line["redacted"] = event["redacted"]
    return line


class MatchStateApi(APIView):
    """The match replayed from its log up to a step (the number of decisions applied)."""

    @extend_schema(
        parameters=[
            OpenApiParameter("step", int, description="Decisions applied; default 0."),
            VIEW_PARAMETER,
        ],
        responses=ReplayStepSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        access = _access(request, pk)
        body = selectors.match_step_visible(access=access, step=_step_parameter(request))
        return Response(ReplayStepSerializer(body).data)


def _step_parameter(request: Request) -> int:
    raw = request.query_params.get("step", "0")
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9):
        raise DomainError(f"must be a non-negative integer, got {raw[:20]!r}", field="step")
    return int(raw)


class SeatStderrApi(APIView):
    """What a seat's bot wrote to stderr in a match: for the bot's owner and staff."""

    @extend_schema(responses=SeatStderrSerializer)
    def get(self, request: Request, pk: int, seat: int) -> Response:
        match = get_object_or_404(Match, pk=pk)
        match_seat = get_object_or_404(match.seats.select_related("version__bot"), seat=seat)
        bot = match_seat.version.bot
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        if not can_see_private(request.user, bot):
            raise PermissionDenied("only the bot's owner and staff see its stderr")
        body = {
            "match": match.pk,
            "seat": seat,
            "bot": str(bot),
            "version": match_seat.version.number,
            "stderr": selectors.seat_stderr(seat=match_seat),
        }
        return Response(SeatStderrSerializer(body).data)
