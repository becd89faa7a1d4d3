"""Read API of the game catalogue: the games Baize plays and their options."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .rules import GAMES, get_game
from .serializers import GameSerializer


class GameListApi(APIView):
    @extend_schema(responses=GameSerializer(many=True))
    def get(self, request: Request) -> Response:
        games = [game.describe() for game in GAMES.values()]
        return Response(GameSerializer(games, many=True).data)


class GameDetailApi(APIView):
    @extend_schema(responses=GameSerializer)
    def get(self, request: Request, game_id: str) -> Response:
        try:
            game = get_game(game_id)
        except ValueError as error:
            raise NotFound(str(error)) from None
        return Response(GameSerializer(game.describe()).data)
