"""``/metrics``, ``/healthz`` and ``/readyz``.

``/metrics`` is never public by default: it answers staff signed in, or a scraper sending
``Authorization: Bearer <BAIZE_METRICS_TOKEN>`` when that token is set; anyone else gets a
404, as if there were nothing there. With ``BAIZE_METRICS=0`` there is nothing there.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from . import exposition, health


def token_given(request: HttpRequest) -> bool:
    return settings.BAIZE_METRICS and exposition.scrape_allowed(
        user=None,
        authorization=request.headers.get("Authorization", ""),
        token=settings.BAIZE_METRICS_TOKEN,
    )


def metrics_view(request: HttpRequest) -> HttpResponse:
    allowed = exposition.scrape_allowed(
        user=request.user,
        authorization=request.headers.get("Authorization", ""),
        token=settings.BAIZE_METRICS_TOKEN,
    )
    if not settings.BAIZE_METRICS or not allowed:
        raise Http404("no metrics here")
    return metrics_response(request)


def metrics_response(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(exposition.scrape(), content_type=CONTENT_TYPE_PLAIN_0_0_4)
    response["Cache-Control"] = "no-store"
    return response


def readiness_response() -> JsonResponse:
    """200 with each part's state when every part is fine; 503 naming those that are not."""
    states = health.readiness()
    failing = [name for name, state in states.items() if state != "ok"]
    body = {"status": "unavailable" if failing else "ready", "checks": states}
    if failing:
        body["failing"] = failing
    response = JsonResponse(body, status=503 if failing else 200)
    response["Cache-Control"] = "no-store"
    return response
