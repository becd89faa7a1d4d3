from django.urls import path

from . import api

urlpatterns = [
    path("accounts/", api.SignUpApi.as_view(), name="sign-up"),
    path("accounts/token/", api.TokenApi.as_view(), name="token"),
    path("bots/", api.BotListApi.as_view(), name="bot-list"),
    path("bots/<int:pk>/", api.BotDetailApi.as_view(), name="bot-detail"),
    path("bots/<int:pk>/versions/", api.BotVersionListApi.as_view(), name="bot-versions"),
    path(
        "bots/<int:pk>/versions/<int:number>/",
        api.BotVersionDetailApi.as_view(),
        name="bot-version-detail",
    ),
    path(
        "bots/<int:pk>/versions/<int:number>/code/",
        api.BotVersionCodeApi.as_view(),
        name="bot-version-code",
    ),
    path("sandbox/", api.SandboxApi.as_view(), name="sandbox"),
    path("runtimes/", api.RuntimesApi.as_view(), name="runtimes"),
]
