"""Tournament pages rendered once per version of the tournament, and revalidated by ETag.

A tournament page changes only when the tournament does, and the tournaments app keeps a
version stamp of exactly that (``tournaments.standings_cache``): the rendered page is
cached under the version, so it is rendered again exactly when a match finishes (or
anything else it shows changes), and under load a request costs no query but the version's.
Pollers send ``If-None-Match`` and get a bodiless 304 while nothing changed.

What is cached is the same for everyone. The page's frame (the header saying who is signed
in, with its sign-out form and CSRF token, and the messages of the viewer's last action)
are two slots of a cached skeleton (``FRAME_SLOTS``), filled per request from two small
templates: a signed-in viewer's page is theirs alone, so it carries no ETag and is never
answered with a 304. A viewer with no session and no message waiting (every anonymous
visitor) gets the skeleton filled once per version, kept by each process (``_kept``): what
the page cost before anyone could sign in, minus one read of the shared cache.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.middleware.csrf import get_token
from django.template.loader import render_to_string

from tournaments import standings_cache

#: Where the per-request parts go in a cached page (escaped text can never spell them).
ACCOUNT_SLOT = "<!--baize:account-->"
MESSAGES_SLOT = "<!--baize:messages-->"
FRAME_SLOTS = {"account": ACCOUNT_SLOT, "messages": MESSAGES_SLOT}
#: Pages a process keeps (a tournament's versions come one after another: few are live).
KEPT_PAGES = 256

#: What a process keeps of a page lives as long as the shared cache keeps its value: a
#: renamed bot, which no version sees, shows within ``standings_cache.VALUE_SECONDS``.
KEPT_SECONDS = standings_cache.VALUE_SECONDS

_pages: OrderedDict[tuple, tuple[float, str]] = OrderedDict()
_pages_lock = threading.Lock()


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
    frame: Callable[[Any, dict[str, str]], str] | None = None,
) -> HttpResponse:
    """``part`` of the tournament's pages, from the cache when its version has not changed;
    ``frame(value, slots)`` makes the page of the cached value with ``FRAME_SLOTS`` in it
    (without ``frame`` the value is the body)."""
    version = tournament_version(tournament_id)
    personal = frame is not None and not _anonymous_and_quiet(request)
    etag = f'"{part}-{version}"'
    if not personal and etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(_body(request, tournament_id, version, part, render, frame))
    if not personal:
        response["ETag"] = etag
    # Browsers may keep the page but must ask again before showing it: it is live.
    response["Cache-Control"] = "no-cache"
    return response


def _body(
    request: HttpRequest,
    tournament_id: int,
    version: str,
    part: str,
    render: Callable[[], Any],
    frame: Callable[[Any, dict[str, str]], str] | None,
) -> str:
    # A framed part's cached value is not its body: a name of its own, so that a body cached
    # under the plain name (by an older release, during a deploy) is never taken for it.
    name = f"web:{part}" if frame is None else f"web:{part}:framed"

    def value() -> Any:
        return standings_cache.cached_for_version(
            tournament_id=tournament_id, version=version, name=name, compute=render
        )

    if frame is None:
        return value()
    skeleton = _kept((tournament_id, version, part), lambda: frame(value(), FRAME_SLOTS))
    if _anonymous_and_quiet(request):
        # The same for every such viewer: filled once per version and process.
        key = (tournament_id, version, part, request.path)
        return _kept(key, lambda: _filled(skeleton, request))
    return _filled(skeleton, request)


def _filled(skeleton: str, request: HttpRequest) -> str:
    """The skeleton with this request's frame. The two fragments get only what they show,
    not every context processor's work: who is signed in, their CSRF token, their messages."""
    user = request.user
    context = {
        "request": request,
        "user": user,
        "csrf_token": get_token(request) if user.is_authenticated else "",
        "messages": get_messages(request),
    }
    account = render_to_string("web/_account.html", context)
    messages = render_to_string("web/_messages.html", context)
    return skeleton.replace(ACCOUNT_SLOT, account, 1).replace(MESSAGES_SLOT, messages, 1)


def _anonymous_and_quiet(request: HttpRequest) -> bool:
    """No session (so nobody signed in) and no message waiting, at the bare address: the
    frame is the same for every such request."""
    cookies = request.COOKIES
    return (
        settings.SESSION_COOKIE_NAME not in cookies
        and CookieStorage.cookie_name not in cookies
        and not request.META.get("QUERY_STRING")
    )


def _kept(key: tuple, make: Callable[[], str]) -> str:
    now = time.monotonic()
    with _pages_lock:
        kept = _pages.get(key)
        if kept is not None and kept[0] > now:
            _pages.move_to_end(key)
            return kept[1]
    page = make()
    with _pages_lock:
        _pages[key] = (now + KEPT_SECONDS, page)
        _pages.move_to_end(key)
        while len(_pages) > KEPT_PAGES:
            _pages.popitem(last=False)
    return page


def kept_pages_forget() -> None:
    """Forget every page this process keeps (as clearing the shared cache forgets its own)."""
    with _pages_lock:
        _pages.clear()
