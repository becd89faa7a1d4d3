"""Tournament pages rendered once per version of the tournament, and revalidated by ETag.

A tournament page changes only when the tournament does, and the tournaments app keeps a
version stamp of exactly that (``tournaments.standings_cache``): the rendered page is
cached under the version, so it is rendered again exactly when a match finishes (or
anything else it shows changes), and under load a request costs no query at all. Pollers
send ``If-None-Match`` and get a bodiless 304 while nothing changed.

What is cached is the same for everyone. The page's frame (the header saying who is signed
in, with its sign-out form and CSRF token) is put around it per request; a signed-in
viewer's page is theirs alone, so it carries no ETag and is never answered with a 304.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified

from tournaments import standings_cache


def tournament_version(tournament_id: int) -> str:
    """The tournament's version stamp; ``Http404`` if there is no such tournament."""
    version = standings_cache.tournament_version(tournament_id=tournament_id)
    if version is None:
        raise Http404(f"no tournament {tournament_id}")
    return version


def tournament_response(
    request: HttpRequest,
    tournament_id: int,
    part: str,
    render: Callable[[], Any],
    *,
    frame: Callable[[Any], str] | None = None,
) -> HttpResponse:
    """``part`` of the tournament's pages, from the cache when its version has not changed;
    ``frame`` makes the page of the cached value for this request (else it is the body)."""
    version = tournament_version(tournament_id)
    # Signed in, the frame names the viewer: nothing of it may be answered for another.
    personal = frame is not None and request.user.is_authenticated
    etag = f'"{part}-{version}"'
    if not personal and etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        cached = standings_cache.cached_for_version(
            tournament_id=tournament_id, version=version, name=f"web:{part}", compute=render
        )
        response = HttpResponse(cached if frame is None else frame(cached))
    if not personal:
        response["ETag"] = etag
    # Browsers may keep the page but must ask again before showing it: it is live.
    response["Cache-Control"] = "no-cache"
    return response
