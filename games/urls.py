from django.urls import path

from . import api

urlpatterns = [
    path("games/", api.GameListApi.as_view(), name="game-list"),
    path("games/<str:game_id>/", api.GameDetailApi.as_view(), name="game-detail"),
    path("matches/<int:pk>/", api.MatchDetailApi.as_view(), name="match-detail"),
    path("matches/<int:pk>/events/", api.MatchEventListApi.as_view(), name="match-events"),
    path("matches/<int:pk>/state/", api.MatchStateApi.as_view(), name="match-state"),
]
