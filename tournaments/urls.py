from django.urls import path

from . import api

urlpatterns = [
    path("tournaments/", api.TournamentListApi.as_view(), name="tournament-list"),
    path("tournaments/<int:pk>/", api.TournamentDetailApi.as_view(), name="tournament-detail"),
    path(
        "tournaments/<int:pk>/standings/",
        api.TournamentStandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<int:pk>/matches/",
        api.TournamentMatchListApi.as_view(),
        name="tournament-matches",
    ),
]
