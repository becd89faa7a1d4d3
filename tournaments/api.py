"""Read API for tournaments: list, detail, standings, matches."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.rules import GAMES
from games.serializers import MatchSerializer

from . import selectors
from .models import Tournament
from .serializers import StandingSerializer, TournamentDetailSerializer, TournamentSerializer


@extend_schema(
    parameters=[
        OpenApiParameter("game", str, description="Only tournaments of this game id."),
        OpenApiParameter("status", str, enum=Tournament.Status.values),
    ]
)
class TournamentListApi(generics.ListAPIView):
    serializer_class = TournamentSerializer

    def get_queryset(self):
        queryset = selectors.tournament_list()
        game = self.request.query_params.get("game")
        status = self.request.query_params.get("status")
        if game is not None:
            if game not in GAMES:
                raise ValidationError({"game": f"unknown game {game!r}; known: {sorted(GAMES)}"})
            queryset = queryset.filter(game=game)
        if status is not None:
            if status not in Tournament.Status.values:
                raise ValidationError({"status": f"must be one of {Tournament.Status.values}"})
            queryset = queryset.filter(status=status)
        return queryset


class TournamentDetailApi(APIView):
    @extend_schema(responses=TournamentDetailSerializer)
    def get(self, request: Request, pk: int) -> Response:
        tournament = get_object_or_404(Tournament, pk=pk)
        tournament.match_counts = selectors.tournament_progress_counts(tournament=tournament)
        tournament.entrants_list = selectors.tournament_entrants(tournament=tournament)
        return Response(TournamentDetailSerializer(tournament).data)


class TournamentStandingsApi(APIView):
    @extend_schema(responses=StandingSerializer(many=True))
    def get(self, request: Request, pk: int) -> Response:
        tournament = get_object_or_404(Tournament, pk=pk)
        rows = [
            {
                "rank": row.rank,
                "entrant": entrant.pk,
                "bot": entrant.version.bot.name,
                "version": entrant.version.number,
                "played": row.played,
                "wins": row.wins,
                "losses": row.losses,
                "head_to_head": row.head_to_head,
                "points_difference": row.points_difference,
                "points_for": row.points_for,
                "points_against": row.points_against,
            }
            for entrant, row in selectors.tournament_standings(tournament=tournament)
        ]
        return Response(StandingSerializer(rows, many=True).data)


class TournamentMatchListApi(generics.ListAPIView):
    serializer_class = MatchSerializer

    def get_queryset(self):
        tournament = get_object_or_404(Tournament, pk=self.kwargs["pk"])
        return selectors.tournament_matches(tournament=tournament)
