from django.contrib.auth.views import LogoutView
from django.urls import path

from . import author_views, views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("queue/", views.queue, name="queue"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament"),
    path("tournaments/<int:pk>/live/", views.tournament_live, name="tournament-live"),
    path("games/<str:game_id>/", views.game_detail, name="game"),
    path("ladder/<str:game_id>/", views.ladder, name="ladder"),
    path("challenges/<int:pk>/", views.challenge_detail, name="challenge"),
    path("version-tests/<int:pk>/", views.version_test_detail, name="version-test"),
    path("bots/<int:pk>/", views.bot_detail, name="bot"),
    path("matches/<int:pk>/", views.match_detail, name="match"),
    # The accounts are the API's: a session here, a token there.
    path("accounts/login/", author_views.SignInView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(), name="logout"),
    path("accounts/sign-up/", author_views.sign_up, name="sign-up"),
    path("my/bots/", author_views.my_bots, name="my-bots"),
    path("my/bots/new/", author_views.bot_create, name="bot-create"),
    path("my/token/", author_views.token_rotate, name="token-rotate"),
    path("my/bots/<int:pk>/versions/", author_views.version_upload, name="version-upload"),
    path("my/challenges/", author_views.challenge_start, name="challenge-start"),
    path("my/version-tests/", author_views.version_test_start, name="version-test-start"),
]
