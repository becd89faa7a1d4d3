from django.urls import path

from . import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament"),
    path("tournaments/<int:pk>/live/", views.tournament_live, name="tournament-live"),
    path("games/<str:game_id>/", views.game_detail, name="game"),
    path("bots/<int:pk>/", views.bot_detail, name="bot"),
    path("matches/<int:pk>/", views.match_detail, name="match"),
]
