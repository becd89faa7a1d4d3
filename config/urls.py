from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from monitoring.views import metrics_view

urlpatterns = [
    path("admin/", admin.site.urls),
    path("metrics", metrics_view, name="metrics"),
    path("api/", include("games.urls")),
    path("api/", include("matches.urls")),
    path("api/", include("tournaments.urls")),
    path("api/", include("ladder.urls")),
    path("api/", include("bots.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("", include("web.urls")),
]
