"""The API of bot authors: sign up, tokens, bots, version uploads and downloads, the sandbox.

Thin views: validate the input, call one service or selector, serialise. The services'
refusals are ``DomainError``s (an upload's ``UploadRejected`` among them), rendered in one
place (``config.api_errors``).
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.exceptions import (
    AuthenticationFailed,
    NotAuthenticated,
    PermissionDenied,
)
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from arena.bot_code import read_code_folder, zip_code
from errors import DomainError, NotFound
from games.rules import GAMES

from . import selectors
from .models import Bot, BotVersion
from .permissions import can_change_bot, can_see_private
from .serializers import (
    AccountSerializer,
    BotInputSerializer,
    BotSerializer,
    BotUpdateInputSerializer,
    BotVersionPrivateSerializer,
    BotVersionSerializer,
    RuntimeSerializer,
    SandboxSerializer,
    SignUpInputSerializer,
    TokenInputSerializer,
    UploadedVersionSerializer,
    VersionUploadInputSerializer,
)
from .services.accounts import user_sign_up, user_token
from .services.bots import bot_create, bot_update
from .services.code_cache import CodeUnavailable
from .services.launch import current_sandbox, version_sources_dir
from .services.upload import bot_version_upload, upload_runtime_choose
from .upload_files import upload_capped, upload_file


class ScopedOnPost(ScopedRateThrottle):
    """Counts only writes: reading a bot's versions is not rate-limited like uploading."""

    def allow_request(self, request, view) -> bool:
        return request.method != "POST" or super().allow_request(request, view)


class SignUpApi(APIView):
    permission_classes = []
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "sign_up"

    @extend_schema(request=SignUpInputSerializer, responses={201: AccountSerializer})
    def post(self, request: Request) -> Response:
        data = _valid(SignUpInputSerializer, request.data)
        user, token = user_sign_up(**data)
        body = {"id": user.pk, "username": user.username, "token": token.key}
        return Response(AccountSerializer(body).data, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    """Exchange a username and password for the account's API token."""

    permission_classes = []
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "token"

    @extend_schema(request=TokenInputSerializer, responses={200: AccountSerializer})
    def post(self, request: Request) -> Response:
        data = _valid(TokenInputSerializer, request.data)
        token = user_token(**data)
        if token is None:
            raise AuthenticationFailed("wrong username or password")
        body = {"id": token.user_id, "username": token.user.username, "token": token.key}
        return Response(AccountSerializer(body).data)


@extend_schema_view(
    # The filters are the list's: POST takes none.
    get=extend_schema(
        parameters=[
            OpenApiParameter("game", str, description="Only bots of this game id."),
            OpenApiParameter("owner", str, description="Only bots of this username."),
        ]
    )
)
class BotListApi(generics.ListAPIView):
    serializer_class = BotSerializer

    def get_queryset(self):
        game = self.request.query_params.get("game")
        if game is not None and game not in GAMES:
            raise DomainError(f"unknown game {game!r}; known: {sorted(GAMES)}", field="game")
        return selectors.bot_list(game=game, owner=self.request.query_params.get("owner"))

    @extend_schema(request=BotInputSerializer, responses={201: BotSerializer})
    def post(self, request: Request) -> Response:
        _require_login(request)
        data = _valid(BotInputSerializer, request.data)
        bot = bot_create(
            owner=request.user,
            game_id=data["game"],
            name=data["name"],
            description=data["description"],
            on_ladder=data["on_ladder"],
        )
        return Response(BotSerializer(bot).data, status=status.HTTP_201_CREATED)


class BotDetailApi(APIView):
    @extend_schema(responses=BotSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(BotSerializer(_bot(pk)).data)

    @extend_schema(request=BotUpdateInputSerializer, responses=BotSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        """Change only the fields given: ``description``, ``on_ladder``."""
        bot = _bot_to_change(request, pk)
        data = _valid(BotUpdateInputSerializer, request.data)
        return Response(BotSerializer(bot_update(bot=bot, **data)).data)


class BotVersionListApi(APIView):
    """A bot's versions; ``POST`` a new one as multipart ``file`` (the runtime's single file
    or a ``.zip``) and ``runtime`` (a row of the runtimes table; without it, the bot's last
    version's if it takes the files, else the table's guess from them: ``runtime_from``)."""

    parser_classes = [MultiPartParser]
    throttle_classes = [ScopedOnPost]
    throttle_scope = "upload"

    @extend_schema(responses=BotVersionSerializer(many=True))
    def get(self, request: Request, pk: int) -> Response:
        bot = _bot(pk)
        versions = selectors.bot_versions(bot=bot)
        return Response(_version_serializer(request, bot)(versions, many=True).data)

    @extend_schema(request=VersionUploadInputSerializer, responses={202: UploadedVersionSerializer})
    def post(self, request: Request, pk: int) -> Response:
        bot = _bot_to_change(request, pk)
        upload = _uploaded_file(request)
        data = upload.read()
        choice = upload_runtime_choose(
            bot=bot, filename=upload.name, data=data, asked=request.data.get("runtime")
        )
        version = bot_version_upload(
            bot=bot, filename=upload.name, data=data, runtime=choice.runtime.name
        )
        version.refresh_from_db()  # the check may have run already (eager tasks)
        body = UploadedVersionSerializer(version, context={"runtime_from": choice.source}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


class BotVersionDetailApi(APIView):
    @extend_schema(responses=BotVersionPrivateSerializer)
    def get(self, request: Request, pk: int, number: int) -> Response:
        bot = _bot(pk)
        version = get_object_or_404(BotVersion, bot=bot, number=number)
        return Response(_version_serializer(request, bot)(version).data)


class BotVersionCodeApi(APIView):
    """An uploaded version's files as a ``.zip``, for the bot's owner and staff.

    Anyone else gets the 404 of a version that does not exist: whose code is stored where
    is nobody else's business.
    """

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    def get(self, request: Request, pk: int, number: int) -> HttpResponse:
        version = BotVersion.objects.select_related("bot").filter(bot_id=pk, number=number).first()
        if version is None or not can_see_private(request.user, version.bot):
            raise NotFound(f"bot {pk} has no version {number} whose code you may download")
        if version.builtin:
            raise DomainError(
                f"{version} is built in: it has no uploaded code to download", field="number"
            )
        try:
            folder = version_sources_dir(version)
        except CodeUnavailable as error:
            raise NotFound(f"the code of {version} cannot be had: {error}") from None
        bot = version.bot
        filename = f"{bot.game}-{bot.name}-v{version.number}.zip"
        return HttpResponse(
            zip_code(read_code_folder(folder)),
            content_type="application/zip",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )


class RuntimesApi(APIView):
    """The runtimes a bot may be written for, as this server has them."""

    @extend_schema(responses=RuntimeSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(RuntimeSerializer(selectors.runtimes_table(), many=True).data)


class SandboxApi(APIView):
    """This server's sandbox level; staff also see each layer."""

    @extend_schema(responses=SandboxSerializer)
    def get(self, request: Request) -> Response:
        report = current_sandbox().report
        body = {"level": report.level.name.lower(), "safe": report.safe, "reason": report.reason}
        if request.user.is_staff:
            body["layers"] = report.layers
        return Response(SandboxSerializer(body).data)


def _valid(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _require_login(request: Request) -> None:
    if not request.user.is_authenticated:
        raise NotAuthenticated()


def _bot(pk: int) -> Bot:
    return get_object_or_404(Bot.objects.select_related("owner"), pk=pk)


def _bot_to_change(request: Request, pk: int) -> Bot:
    _require_login(request)
    bot = _bot(pk)
    if not can_change_bot(request.user, bot):
        raise PermissionDenied(f"{bot} belongs to someone else; only its owner may change it")
    return bot


def _version_serializer(request: Request, bot: Bot):
    if can_see_private(request.user, bot):
        return BotVersionPrivateSerializer
    return BotVersionSerializer


def _uploaded_file(request: Request):
    """The ``file`` part of the upload, refused early when it is too large."""
    handler = upload_capped(request._request)
    return upload_file(request.FILES.get("file"), handler)
