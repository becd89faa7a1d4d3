from django.urls import path

from . import api

urlpatterns = [
    path("games/", api.GameListApi.as_view(), name="game-list"),
    path("games/<str:game_id>/", api.GameDetailApi.as_view(), name="game-detail"),
]
