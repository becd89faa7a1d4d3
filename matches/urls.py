from django.urls import path

from . import api

# The match list, ``matches/``, is routed by ``tournaments.urls``: its ``kind`` filter reads
# tournament formats, which this layer does not know (``tournaments.api.MatchListApi``).
urlpatterns = [
    path("matches/<int:pk>/", api.MatchDetailApi.as_view(), name="match-detail"),
    path("matches/<int:pk>/events/", api.MatchEventListApi.as_view(), name="match-events"),
    path("matches/<int:pk>/log/", api.MatchLogApi.as_view(), name="match-log"),
    path("matches/<int:pk>/state/", api.MatchStateApi.as_view(), name="match-state"),
    path(
        "matches/<int:pk>/seats/<int:seat>/stderr/",
        api.SeatStderrApi.as_view(),
        name="seat-stderr",
    ),
]
