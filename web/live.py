"""Tournament pages rendered once per version of the tournament, and revalidated by ETag.

A tournament page changes only when the tournament does: a match starts or finishes, a
round is paired, the status moves. ``selectors.tournament_version`` reads all of that in
one aggregate query; the rendered page is cached under that version, so it is rendered
again exactly when a match finishes (or anything else it shows changes). Under load a
process also reuses the version it read for ``VERSION_SECONDS``, so a request costs no
query at all and a change shows at most that late. Pollers send ``If-None-Match`` and get
a bodiless 304 while nothing changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified

from . import selectors

VERSION_SECONDS = 1.0
#: Rendered pages are keyed by version: an old one is never served, only left to expire.
PAGE_SECONDS = 300


def tournament_version(tournament_id: int) -> str:
    """A short stamp that changes whenever the tournament's pages would; ``Http404`` if none."""
    key = f"web:tournament:{tournament_id}:version"
    version = cache.get(key)
    if version is None:
        row = selectors.tournament_version(tournament_id=tournament_id)
        if row is None:
            raise Http404(f"no tournament {tournament_id}")
        version = hashlib.sha256(repr(row).encode()).hexdigest()[:16]
        cache.set(key, version, VERSION_SECONDS)
    return version


def tournament_response(
    request: HttpRequest, tournament_id: int, part: str, render: Callable[[], str]
) -> HttpResponse:
    """``part`` of the tournament's pages, from the cache when its version has not changed."""
    etag = f'"{part}-{tournament_version(tournament_id)}"'
    if etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        key = f"web:tournament:{tournament_id}:{etag}"
        body = cache.get(key)
        if body is None:
            body = render()
            cache.set(key, body, PAGE_SECONDS)
        response = HttpResponse(body)
    response["ETag"] = etag
    # Browsers may keep the page but must ask again before showing it: it is live.
    response["Cache-Control"] = "no-cache"
    return response
