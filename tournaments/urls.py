from django.urls import path

from . import api, queue_api
from .ratings import api as ratings_api

urlpatterns = [
    # The match list and a match live here, above ``matches``, for the tournament's kind.
    path("matches/", api.MatchListApi.as_view(), name="match-list"),
    path("matches/<int:pk>/", api.MatchDetailApi.as_view(), name="match-detail"),
    path("queue/", queue_api.QueueApi.as_view(), name="queue"),
    path("tournaments/", api.TournamentListApi.as_view(), name="tournament-list"),
    path("tournaments/<int:pk>/", api.TournamentDetailApi.as_view(), name="tournament-detail"),
    path(
        "tournaments/<int:pk>/schedule/",
        api.TournamentScheduleApi.as_view(),
        name="tournament-schedule",
    ),
    path(
        "tournaments/<int:pk>/cancel/", api.TournamentCancelApi.as_view(), name="tournament-cancel"
    ),
    path(
        "tournaments/<int:pk>/entrants/",
        api.TournamentEntrantListApi.as_view(),
        name="tournament-entrants",
    ),
    path(
        "tournaments/<int:pk>/rounds/",
        api.TournamentRoundListApi.as_view(),
        name="tournament-rounds",
    ),
    path(
        "tournaments/<int:pk>/pairings/",
        api.TournamentPairingListApi.as_view(),
        name="tournament-pairings",
    ),
    path(
        "tournaments/<int:pk>/bracket/",
        api.TournamentBracketApi.as_view(),
        name="tournament-bracket",
    ),
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
    path("ratings/", ratings_api.RatingListApi.as_view(), name="rating-list"),
    path(
        "ratings/bots/<int:bot_id>/",
        ratings_api.BotRatingHistoryApi.as_view(),
        name="bot-rating-history",
    ),
]
