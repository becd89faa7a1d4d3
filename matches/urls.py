from django.urls import path

from . import api

# The match list, ``matches/``, and a match, ``matches/<pk>/``, are routed by
# ``tournaments.urls``: the list's ``kind`` filter and the tournament each names read
# tournament formats, which this layer does not know (``tournaments.api``).
urlpatterns = [
    path("matches/<int:pk>/events/", api.MatchEventListApi.as_view(), name="match-events"),
    path("matches/<int:pk>/log/", api.MatchLogApi.as_view(), name="match-log"),
    path("matches/<int:pk>/state/", api.MatchStateApi.as_view(), name="match-state"),
    path(
        "matches/<int:pk>/seats/<int:seat>/stderr/",
        api.SeatStderrApi.as_view(),
        name="seat-stderr",
    ),
]
