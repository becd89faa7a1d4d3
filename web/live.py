"""Tournament pages rendered once per version of the tournament, and revalidated by ETag.

A tournament page changes only when the tournament does, and the tournaments app keeps a
version stamp of exactly that (``tournaments.standings_cache``): the rendered page is
cached under the version, so it is rendered again exactly when a match finishes (or
anything else it shows changes), and under load a request costs no query at all. Pollers
send ``If-None-Match`` and get a bodiless 304 while nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified

from tournaments import standings_cache


def tournament_version(tournament_id: int) -> str:
    """The tournament's version stamp; ``Http404`` if there is no such tournament."""
    version = standings_cache.tournament_version(tournament_id=tournament_id)
    if version is None:
        raise Http404(f"no tournament {tournament_id}")
    return version


def tournament_response(
    request: HttpRequest, tournament_id: int, part: str, render: Callable[[], str]
) -> HttpResponse:
    """``part`` of the tournament's pages, from the cache when its version has not changed."""
    version = tournament_version(tournament_id)
    etag = f'"{part}-{version}"'
    if etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        body = standings_cache.cached_for_version(
            tournament_id=tournament_id, version=version, name=f"web:{part}", compute=render
        )
        response = HttpResponse(body)
    response["ETag"] = etag
    # Browsers may keep the page but must ask again before showing it: it is live.
    response["Cache-Control"] = "no-cache"
    return response
