"""The tournaments API: thin views that validate, call one service or selector, and
serialise. Lists are paginated (``limit``, ``offset``) and filtered by query parameters.

The ratings' views (leaderboard, rating history) are ``tournaments.ratings.api``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import BotVersion
from errors import DomainError
from games.rules import GAMES
from matches import api as matches_api
from matches.serializers import MatchSerializer
from matches.visibility import deals_in_play

from . import selectors, services, standings_cache
from .formats import ORGANISED, format_names, format_spec, kinds
from .models import Pairing, Tournament
from .permissions import IsOrganiser, can_enter, is_organiser
from .query_params import choice_param, integer_param
from .serializers import (
    BracketPairingSerializer,
    CancelSerializer,
    EntrantSerializer,
    EntryCreateSerializer,
    MatchAccessWithTournamentSerializer,
    MatchWithTournamentSerializer,
    PairingSerializer,
    RoundSerializer,
    ScheduleSerializer,
    StandingSerializer,
    TournamentCreateSerializer,
    TournamentDetailSerializer,
    TournamentSerializer,
)

#: The ``kind`` filter's value for every kind at once.
ALL_KINDS = "all"


def _tournament(pk: int) -> Tournament:
    return get_object_or_404(Tournament, pk=pk)


@extend_schema_view(
    # The filters are the list's: POST takes none.
    get=extend_schema(
        parameters=[
            OpenApiParameter("game", str, description="Only tournaments of this game id."),
            OpenApiParameter("status", str, enum=Tournament.Status.values),
            OpenApiParameter(
                "tournament_format",
                str,
                enum=format_names(),
                description="Only this format (``format`` itself picks the response renderer).",
            ),
            OpenApiParameter(
                "kind",
                str,
                enum=[*kinds(), ALL_KINDS],
                description=(
                    "``organised`` (an organiser's tournaments), the ladder's runs, authors' "
                    "challenges or version tests, or ``all``. Default ``organised``, unless "
                    "``tournament_format`` names a format: then that format's kind."
                ),
            ),
        ]
    )
)
class TournamentListApi(generics.ListAPIView):
    """Tournaments, newest first: by default only organised ones (``kind`` for the others);
    organisers create them with ``POST``."""

    serializer_class = TournamentSerializer

    def get_queryset(self) -> QuerySet[Tournament]:
        filters = {
            "game": choice_param(self.request, "game", GAMES),
            "status": choice_param(self.request, "status", Tournament.Status.values),
            "format": choice_param(self.request, "tournament_format", format_names()),
        }
        default_kind = format_spec(filters["format"]).kind if filters["format"] else ORGANISED
        kind = choice_param(self.request, "kind", [*kinds(), ALL_KINDS]) or default_kind
        queryset = selectors.tournament_list(kind=None if kind == ALL_KINDS else kind)
        return queryset.filter(**{name: value for name, value in filters.items() if value})

    @extend_schema(request=TournamentCreateSerializer, responses={201: TournamentSerializer})
    def post(self, request: Request) -> Response:
        if not is_organiser(request.user):
            raise PermissionDenied("only organisers create tournaments")
        given = TournamentCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        starts_at = given.validated_data["starts_at"]
        # A refusal names the setting at fault (``TournamentError.field``), as the input's
        # own fields do.
        tournament = services.tournament_create(
            config=given.validated_config(), organiser=request.user
        )
        if starts_at is not None:
            services.tournament_schedule(tournament=tournament, starts_at=starts_at)
        tournament.refresh_from_db()
        return Response(TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    @extend_schema(responses=TournamentDetailSerializer)
    def get(self, request: Request, pk: int) -> Response:
        tournament = _tournament(pk)
        tournament.match_counts = selectors.tournament_progress_counts(tournament=tournament)
        tournament.entrants_list = selectors.tournament_entrants(tournament=tournament)
        return Response(TournamentDetailSerializer(tournament).data)


class TournamentScheduleApi(APIView):
    permission_classes = [IsOrganiser]

    @extend_schema(request=ScheduleSerializer, responses=TournamentSerializer)
    def post(self, request: Request, pk: int) -> Response:
        tournament = _tournament(pk)
        given = ScheduleSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        if not services.tournament_schedule(
            tournament=tournament, starts_at=given.validated_data["starts_at"]
        ):
            raise services.TournamentConflict(
                f"a {tournament.status} tournament cannot be scheduled", field="status"
            )
        tournament.refresh_from_db()
        return Response(TournamentSerializer(tournament).data)


class TournamentCancelApi(APIView):
    permission_classes = [IsOrganiser]

    @extend_schema(request=CancelSerializer, responses=TournamentSerializer)
    def post(self, request: Request, pk: int) -> Response:
        tournament = _tournament(pk)
        given = CancelSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        reason = given.validated_data["reason"]
        if not services.tournament_cancel(tournament=tournament, reason=reason, user=request.user):
            raise services.TournamentConflict(
                f"a {tournament.status} tournament cannot be cancelled", field="status"
            )
        tournament.refresh_from_db()
        return Response(TournamentSerializer(tournament).data)


class TournamentEntrantListApi(generics.ListAPIView):
    """The entrants (seed order once started); ``POST`` enters a bot version, given by its
    id or as ``{"bot": <bot id>, "version": <version number>}``."""

    serializer_class = EntrantSerializer

    def get_queryset(self):
        return selectors.tournament_entrants(tournament=_tournament(self.kwargs["pk"]))

    @extend_schema(request=EntryCreateSerializer, responses={201: EntrantSerializer})
    def post(self, request: Request, pk: int) -> Response:
        if not request.user.is_authenticated:
            raise PermissionDenied("sign in to enter a bot")
        tournament = _tournament(pk)
        given = EntryCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        version = _entry_version(request, **given.validated_data)
        try:
            entrant = services.tournament_enter(tournament=tournament, version=version)
        except services.TournamentError as error:
            error.field = error.field or "version"
            raise
        return Response(EntrantSerializer(entrant).data, status=status.HTTP_201_CREATED)


def _entry_version(request: Request, *, bot: int | None, version: int) -> BotVersion:
    """By id: 404 if there is none, 403 if it is not the caller's. By bot and number: 400
    naming the field for either (``services.tournament_entry_version``)."""
    if bot is not None:
        return services.tournament_entry_version(bot_id=bot, number=version, user=request.user)
    found = get_object_or_404(BotVersion.objects.select_related("bot"), pk=version)
    if not can_enter(request.user, found):
        raise PermissionDenied("only the bot's owner or an organiser enters a bot")
    return found


class TournamentRoundListApi(generics.ListAPIView):
    """Rounds (per bracket side in eliminations), with their pairings finished so far."""

    serializer_class = RoundSerializer

    def get_queryset(self):
        return selectors.tournament_rounds(tournament=_tournament(self.kwargs["pk"]))


@extend_schema(
    parameters=[
        OpenApiParameter("round", int),
        OpenApiParameter(
            "bracket",
            str,
            enum=Pairing.Bracket.values,
            description="rounds: pairings not in an elimination bracket (round robin, Swiss, "
            "...); winners, losers or final: that part of an elimination bracket.",
        ),
        OpenApiParameter("status", str, enum=Pairing.Status.values),
        OpenApiParameter("entrant", int, description="Pairings of this entrant id."),
    ]
)
class TournamentPairingListApi(generics.ListAPIView):
    """Pairings with their duplicate sets and results, by round."""

    serializer_class = PairingSerializer

    def get_queryset(self):
        pairings = selectors.tournament_pairings(tournament=_tournament(self.kwargs["pk"]))
        round_number = integer_param(self.request, "round")
        bracket = choice_param(self.request, "bracket", Pairing.Bracket.values)
        pairing_status = choice_param(self.request, "status", Pairing.Status.values)
        entrant = integer_param(self.request, "entrant")
        if round_number is not None:
            pairings = pairings.filter(round=round_number)
        if bracket is not None:
            pairings = pairings.filter(bracket=bracket)
        if pairing_status is not None:
            pairings = pairings.filter(status=pairing_status)
        if entrant is not None:
            pairings = pairings.filter(Q(first_id=entrant) | Q(second_id=entrant))
        return pairings


@extend_schema(parameters=[OpenApiParameter("side", str, enum=["winners", "losers", "final"])])
class TournamentBracketApi(generics.ListAPIView):
    """Every pairing of an elimination bracket, in playing order: sources, sides, status."""

    serializer_class = BracketPairingSerializer

    def get_queryset(self):
        tournament = _tournament(self.kwargs["pk"])
        pairings = selectors.tournament_bracket(tournament=tournament)
        if pairings is None:
            raise DomainError(f"a {tournament.format} tournament has no bracket", field="format")
        side = choice_param(self.request, "side", ["winners", "losers", "final"])
        return [pairing for pairing in pairings if side is None or pairing.side == side]


class TournamentStandingsApi(generics.ListAPIView):
    """Standings, best first, with every tie-break column and the order they apply in.

    Served from the cache while the tournament's version holds (``standings_cache``), and
    revalidated by ETag: pollers sending ``If-None-Match`` get a bodiless 304 meanwhile.
    """

    serializer_class = StandingSerializer
    # Public and read-only: nobody to authenticate, and checking costs every request.
    authentication_classes = ()

    def get(self, request: Request, pk: int) -> HttpResponseBase:
        version = standings_cache.tournament_version(tournament_id=pk)
        if version is None:
            raise Http404(f"No {Tournament._meta.object_name} matches the given query.")
        etag = f'"standings-{version}"'
        if etag in request.headers.get("If-None-Match", ""):
            response = HttpResponseNotModified()
        elif isinstance(request.accepted_renderer, JSONRenderer):
            body = self._cached(request, version, "json", lambda: self._json(request, version))
            response = HttpResponse(body, content_type=request.accepted_renderer.media_type)
        else:
            # The browsable API prints who is signed in and a CSRF token: rendered each time.
            response = Response(self._page(request, version))
        response["ETag"] = etag
        # Clients may keep the standings but must ask again before using them: they are live.
        response["Cache-Control"] = "no-cache"
        return response

    def _cached(self, request: Request, version: str, form: str, compute: Callable[[], Any]) -> Any:
        # The page's links hold the full URL, so it is the key (limit, offset, host); the
        # accepted media type too, as its parameters (``indent``) shape the JSON.
        return standings_cache.cached_for_version(
            tournament_id=self.kwargs["pk"],
            version=version,
            name=f"api:standings:{form}:{request.accepted_media_type}:{request.build_absolute_uri()}",
            compute=compute,
        )

    def _page(self, request: Request, version: str) -> dict:
        return self._cached(request, version, "data", lambda: self.list(request).data)

    def _json(self, request: Request, version: str) -> bytes:
        page = self._page(request, version)
        renderer_context = self.get_renderer_context()
        return request.accepted_renderer.render(page, request.accepted_media_type, renderer_context)

    def get_queryset(self):
        table = selectors.tournament_standings(tournament=_tournament(self.kwargs["pk"]))
        tie_breaks = [name.value for name in table.tie_breaks]
        return [
            {
                "rank": row.rank,
                "entrant": entrant.pk,
                "bracket_position": entrant.bracket_position,
                "bot": entrant.version.bot.name,
                "version": entrant.version.number,
                "place": row.place,
                "played": row.played,
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
                "byes": row.byes,
                "score": row.score,
                "head_to_head": row.head_to_head,
                "buchholz": row.buchholz,
                "sonneborn_berger": row.sonneborn_berger,
                "points_difference": row.points_difference,
                "points_for": row.points_for,
                "points_against": row.points_against,
                "tie_breaks": tie_breaks,
            }
            for entrant, row in table.rows
        ]


class TournamentMatchListApi(generics.ListAPIView):
    serializer_class = MatchSerializer

    def get_queryset(self):
        return selectors.tournament_matches(tournament=_tournament(self.kwargs["pk"]))

    def get_serializer(self, *args, **kwargs):
        # One query says whose seed is withheld on the whole page.
        if args and isinstance(args[0], list):
            kwargs["context"] = {
                **self.get_serializer_context(),
                "deals_in_play": deals_in_play(args[0]),
            }
        return super().get_serializer(*args, **kwargs)


@extend_schema(
    parameters=[
        *matches_api.MINE_PARAMETERS,
        OpenApiParameter(
            "kind",
            str,
            enum=list(kinds()),
            description="With mine=true: only matches of tournaments of this kind"
            " (organised, ladder, challenge, version_test).",
        ),
    ]
)
class MatchListApi(matches_api.MatchListApi):
    """Matches, newest first, as anyone may see them, paginated, each with its tournament
    and that tournament's kind; ``mine=true`` narrows them to your bots' and takes the
    filters, ``kind`` among them (a tournament format's kind)."""

    serializer_class = MatchWithTournamentSerializer
    mine_only = (*matches_api.MatchListApi.mine_only, "kind")

    def get_queryset(self) -> QuerySet:
        return super().get_queryset().select_related("tournament_match__tournament")

    def narrow_mine(self, matches: QuerySet) -> QuerySet:
        kind = choice_param(self.request, "kind", kinds())
        return matches if kind is None else selectors.matches_of_kind(matches=matches, kind=kind)


@extend_schema_view(
    get=extend_schema(
        parameters=[matches_api.VIEW_PARAMETER], responses=MatchAccessWithTournamentSerializer
    )
)
class MatchDetailApi(matches_api.MatchDetailApi):
    """A match in the view asked for, with the tournament it was played for and its kind."""

    serializer_class = MatchAccessWithTournamentSerializer
