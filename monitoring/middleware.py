"""What every request goes through first: the health answers, its id, its metrics.

``HealthMiddleware`` stands first: ``/healthz`` and ``/readyz`` answer before the host is
checked (a container's health probe asks ``127.0.0.1``, which ``ALLOWED_HOSTS`` need not
name), as does ``/metrics`` for a scraper carrying the metrics token (Prometheus asks the
service by its compose name). ``RequestMiddleware`` gives each request an id (the client's
``X-Request-ID`` if it sent a sane one), which its log lines carry and its answer returns,
and, with metrics on, counts it by route (the URL pattern, never the path) and status.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from . import metrics, views
from .logs import log_context_set

#: A request id a client may choose: short, and nothing a log reader would trip on.
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
#: The route of a request no URL pattern matched (a 404, or a static file).
UNMATCHED = "<unmatched>"


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if path == "/healthz":
            return JsonResponse({"status": "alive"})
        if path == "/readyz":
            return views.readiness_response()
        if path == "/metrics" and views.token_given(request):
            return views.metrics_response(request)
        return self.get_response(request)


class RequestMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.counted = settings.BAIZE_METRICS
        self.static = "/" + settings.STATIC_URL.lstrip("/")
        #: The metrics' children by labels: ``labels()`` takes a lock each time.
        self.children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _SANE_ID.fullmatch(given) else uuid.uuid4().hex
        started = time.perf_counter()
        # Set until the next request of this thread: Django logs a 4xx or 5xx answer after
        # the middleware has returned it, and that line is this request's too.
        log_context_set(request_id=request_id)
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        if self.counted:
            self._count(request, response.status_code, time.perf_counter() - started)
        return response

    def _count(self, request: HttpRequest, status: int, seconds: float) -> None:
        method = request.method if request.method in _METHODS else "other"
        match = request.resolver_match
        if match is not None:
            route = match.route
        elif request.path_info.startswith(self.static):
            route = self.static.lstrip("/")
        else:
            route = UNMATCHED
        key = (method, route, status)
        children = self.children.get(key)
        if children is None:
            children = (
                metrics.http_requests.labels(method, route, str(status)),
                metrics.http_request_duration.labels(method, route),
            )
            # Bounded: a few methods, the URL patterns, the status codes a view answers.
            self.children[key] = children
        counted, timed = children
        counted.inc()
        timed.observe(seconds)
