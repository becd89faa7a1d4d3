"""The ladder, challenge and version-test API: thin views over ``services`` and ``selectors``."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import Bot, BotVersion
from errors import DomainError, NotFound
from games.rules import GAMES
from tournaments.formats import Format
from tournaments.models import Tournament
from tournaments.queueing import QueueSnapshot, queue_snapshot
from tournaments.sprt import SprtParameters

from . import selectors, services
from .serializers import (
    AuthorTournamentSerializer,
    ChallengeCreateSerializer,
    ChallengeDetailSerializer,
    LadderSerializer,
    SetSerializer,
    VersionHeadToHeadSerializer,
    VersionTestCreateSerializer,
    VersionTestDetailSerializer,
    VersionTestSerializer,
)


def _game(game: str) -> str:
    if game not in GAMES:
        raise DomainError(f"unknown game {game!r}; known: {sorted(GAMES)}", field="game")
    return game


class LadderApi(APIView):
    """The game's ladder: every active version by conservative rating, best first."""

    @extend_schema(responses=LadderSerializer)
    def get(self, request: Request, game: str) -> Response:
        game = _game(game)
        the_ladder = selectors.ladder(game_id=game)
        in_flight = selectors.ladder_sets_in_flight(ladder=the_ladder) if the_ladder else 0
        table = selectors.ladder_table(game_id=game)
        data = {"game": game, "sets_in_flight": in_flight, "rows": table}
        return Response(LadderSerializer(data).data)


class LadderSetListApi(generics.ListAPIView):
    """The game's latest finished ladder sets, newest first."""

    serializer_class = SetSerializer

    def get_queryset(self) -> Any:
        return selectors.ladder_recent_sets(game_id=_game(self.kwargs["game"]), limit=None)


def _version(pk: int, field: str) -> BotVersion:
    version = BotVersion.objects.select_related("bot").filter(pk=pk).first()
    if version is None:
        raise DomainError(f"no bot version {pk}", field=field)
    return version


def _mine_only(request: Request, queryset: Any) -> Any:
    mine = request.query_params.get("mine")
    if mine not in (None, "true", "false"):
        raise DomainError(f"must be true or false, got {mine!r}", field="mine")
    if mine != "true":
        return queryset
    if not request.user.is_authenticated:
        raise NotAuthenticated("log in to list your own")
    return queryset.filter(organiser=request.user)


def _snapshot(tournaments: Any) -> QueueSnapshot | None:
    """The queue, read once for a request's running challenges or tests (None: none runs)."""
    running = any(t.status == Tournament.Status.RUNNING for t in tournaments)
    return queue_snapshot() if running else None


def _author_view(
    tournament: Tournament, *, with_sets: bool = False, snapshot: QueueSnapshot | None = None
) -> dict[str, Any]:
    """A challenge or test from the side of ``first``; ``with_sets`` adds every set; where it
    stands in the queue (its place in line and the seconds it is expected to take)."""
    first, opponents = selectors.author_versions(tournament=tournament)
    sets = {"sets": selectors.author_sets(tournament=tournament)} if with_sets else {}
    if snapshot is None:
        snapshot = _snapshot([tournament])
    eta = (
        selectors.author_eta(tournament=tournament, snapshot=snapshot)
        if snapshot is not None
        else selectors.AuthorEta(None, 0, 0, None)
    )
    return {
        "position": eta.position,
        "matches_left": eta.matches_left,
        "eta_seconds": eta.eta_seconds,
        "id": tournament.pk,
        "name": tournament.name,
        "game": tournament.game,
        "status": tournament.status,
        "created_at": tournament.created_at,
        "finished_at": tournament.finished_at,
        "first": first,
        "second": opponents[0] if len(opponents) == 1 else None,
        "opponents": opponents,
        "result": selectors.head_to_head(tournament=tournament),
        **sets,
    }


def _test_view(
    tournament: Tournament, *, with_sets: bool = False, snapshot: QueueSnapshot | None = None
) -> dict[str, Any]:
    progress = selectors.version_test_progress(tournament=tournament)
    test = tournament.version_test
    sprt = {
        "elo0": test.elo0,
        "elo1": test.elo1,
        "alpha": test.alpha,
        "beta": test.beta,
        "max_sets": test.max_sets,
        "llr": progress.llr,
        "lower_bound": progress.lower_bound,
        "upper_bound": progress.upper_bound,
        "verdict": progress.verdict,
    }
    return {**_author_view(tournament, with_sets=with_sets, snapshot=snapshot), "sprt": sprt}


@extend_schema_view(
    # The filters are the list's: POST takes none.
    get=extend_schema(
        parameters=[
            OpenApiParameter("mine", str, enum=["true", "false"], description="Only yours.")
        ]
    )
)
class ChallengeListApi(generics.ListAPIView):
    """Challenges, newest first; an author asks for one with ``POST``."""

    serializer_class = AuthorTournamentSerializer

    def get_queryset(self) -> Any:
        challenges = Tournament.objects.filter(format=Format.CHALLENGE).order_by("-created_at")
        return _mine_only(self.request, challenges)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        snapshot = _snapshot(page)
        views = [_author_view(t, snapshot=snapshot) for t in page]
        return self.get_paginated_response(AuthorTournamentSerializer(views, many=True).data)

    @extend_schema(request=ChallengeCreateSerializer, responses={201: AuthorTournamentSerializer})
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("log in to challenge")
        given = ChallengeCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        challenge = services.challenge_create(
            user=request.user,
            version=_version(given.validated_data["version"], "version"),
            opponent=_version(given.validated_data["opponent"], "opponent"),
            sets=given.validated_data["sets"],
        )
        data = AuthorTournamentSerializer(_author_view(challenge)).data
        return Response(data, status=status.HTTP_201_CREATED)


class ChallengeDetailApi(APIView):
    """A challenge from the challenger's side, with every set."""

    @extend_schema(responses=ChallengeDetailSerializer)
    def get(self, request: Request, pk: int) -> Response:
        challenge = get_object_or_404(Tournament, pk=pk, format=Format.CHALLENGE)
        return Response(ChallengeDetailSerializer(_author_view(challenge, with_sets=True)).data)


@extend_schema_view(
    # The filters are the list's: POST takes none.
    get=extend_schema(
        parameters=[
            OpenApiParameter("mine", str, enum=["true", "false"], description="Only yours.")
        ]
    )
)
class VersionTestListApi(generics.ListAPIView):
    """Version tests, newest first; an author starts one with ``POST``."""

    serializer_class = VersionTestSerializer

    def get_queryset(self) -> Any:
        tests = Tournament.objects.filter(format=Format.VERSION_TEST).order_by("-created_at")
        return _mine_only(self.request, tests.select_related("version_test"))

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        snapshot = _snapshot(page)
        views = [_test_view(t, snapshot=snapshot) for t in page]
        return self.get_paginated_response(VersionTestSerializer(views, many=True).data)

    @extend_schema(request=VersionTestCreateSerializer, responses={201: VersionTestSerializer})
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("log in to start a version test")
        given = VersionTestCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        test = services.version_test_create(
            user=request.user,
            candidate=_version(data["candidate"], "candidate"),
            baseline=_version(data["baseline"], "baseline") if "baseline" in data else None,
            pool=[_version(pk, "pool") for pk in data.get("pool", [])],
            parameters=SprtParameters(
                data["elo0"], data["elo1"], data["alpha"], data["beta"], data["max_sets"]
            ),
        )
        return Response(VersionTestSerializer(_test_view(test)).data, status=201)


class VersionTestDetailApi(APIView):
    """A version test from the candidate's side, with every set."""

    @extend_schema(responses=VersionTestDetailSerializer)
    def get(self, request: Request, pk: int) -> Response:
        test = get_object_or_404(Tournament, pk=pk, format=Format.VERSION_TEST)
        return Response(VersionTestDetailSerializer(_test_view(test, with_sets=True)).data)


class BotHeadToHeadApi(APIView):
    """A bot version's record against each opponent version it has finished duplicate sets
    against, in any tournament (the ladder, challenges and version tests included)."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "version", int, description="The version's number; default its latest ready one."
            )
        ],
        responses=VersionHeadToHeadSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        bot = Bot.objects.filter(pk=pk).first()
        if bot is None:
            raise NotFound(f"no bot {pk}")
        version = _bot_version(bot, request.query_params.get("version"))
        data = {
            "bot_id": bot.pk,
            "bot": bot.name,
            "version": version.number,
            "version_id": version.pk,
            "rows": selectors.version_head_to_head(version=version),
        }
        return Response(VersionHeadToHeadSerializer(data, context={"request": request}).data)


def _bot_version(bot: Bot, raw: str | None) -> BotVersion:
    """The bot's version numbered ``raw``, or its latest ready one when none is asked for."""
    if raw is None:
        version = selectors.latest_ready_version(bot_id=bot.pk)
        if version is None:
            raise NotFound(f"bot {bot.pk} has no ready version", field="version")
        return version
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9):
        raise DomainError(f"must be a version number, got {raw[:20]!r}", field="version")
    version = BotVersion.objects.filter(bot=bot, number=int(raw)).select_related("bot").first()
    if version is None:
        raise NotFound(f"bot {bot.pk} has no version {int(raw)}", field="version")
    return version
