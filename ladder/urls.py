from django.urls import path

from . import api

urlpatterns = [
    path("ladder/<str:game>/", api.LadderApi.as_view(), name="ladder"),
    path("ladder/<str:game>/sets/", api.LadderSetListApi.as_view(), name="ladder-sets"),
    path("bots/<int:pk>/head-to-head/", api.BotHeadToHeadApi.as_view(), name="bot-head-to-head"),
    path("challenges/", api.ChallengeListApi.as_view(), name="challenge-list"),
    path("challenges/<int:pk>/", api.ChallengeDetailApi.as_view(), name="challenge-detail"),
    path("version-tests/", api.VersionTestListApi.as_view(), name="version-test-list"),
    path("version-tests/<int:pk>/", api.VersionTestDetailApi.as_view(), name="version-test-detail"),
]
