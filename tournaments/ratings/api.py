"""The ratings API: a game's leaderboard and a bot's rating history, read-only."""

from __future__ import annotations

from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics

from bots.models import Bot
from errors import DomainError
from games.rules import GAMES

from ..query_params import choice_param, integer_param
from . import selectors as rating_selectors
from .serializers import RatingChangeSerializer, RatingSerializer


@extend_schema(
    parameters=[
        OpenApiParameter("game", str, required=True, description="The game id."),
        OpenApiParameter("min_sets", int, description="Only bots with this many rated sets."),
    ]
)
class RatingListApi(generics.ListAPIView):
    """A game's leaderboard: conservative rating ``mu - 3 sigma``, best first."""

    serializer_class = RatingSerializer

    def get_queryset(self):
        game = choice_param(self.request, "game", GAMES)
        if game is None:
            raise DomainError(f"required; one of {sorted(GAMES)}", field="game")
        ratings = rating_selectors.leaderboard(game_id=game).annotate(
            rank=Window(RowNumber(), order_by=[F("conservative").desc(), F("id").asc()])
        )
        min_sets = integer_param(self.request, "min_sets")
        return ratings if min_sets is None else ratings.filter(sets__gte=min_sets)


@extend_schema(
    parameters=[
        OpenApiParameter("game", str),
        OpenApiParameter("version", int, description="Only this version number."),
    ]
)
class BotRatingHistoryApi(generics.ListAPIView):
    """Every rating change of a bot's versions, oldest first, with the set that caused it."""

    serializer_class = RatingChangeSerializer

    def get_queryset(self):
        bot = get_object_or_404(Bot, pk=self.kwargs["bot_id"])
        history = rating_selectors.rating_history(bot_id=bot.pk)
        game = choice_param(self.request, "game", GAMES)
        version = integer_param(self.request, "version")
        if game is not None:
            history = history.filter(update__leaderboard__game=game)
        if version is not None:
            history = history.filter(version__number=version)
        return history
