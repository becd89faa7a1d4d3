"""Tournament pages rendered once per version of the tournament, and revalidated by ETag.

A tournament page changes only when the tournament does, and the tournaments app keeps a
version stamp of exactly that (``tournaments.standings_cache``): the rendered page is
cached under the version, so it is rendered again exactly when a match finishes (or
anything else it shows changes), and under load a request costs no query but the version's.
Pollers send ``If-None-Match`` and get a bodiless 304 while nothing changed.

What is cached is the same for everyone. The page's frame (the header saying who is signed
in, with its sign-out form and CSRF token, and the messages of the viewer's last action)
are two slots of a cached skeleton (``FRAME_SLOTS``), filled per request: a signed-in
viewer's page is theirs alone, so it is private, carries no ETag and is never answered with
a 304. A viewer with no session and no message waiting (every anonymous visitor) gets the
skeleton filled once per version, kept by each process (``_pages``): what the page cost
before anyone could sign in, minus one read of the shared cache.

A signed-in viewer's header is kept by the process too (``_accounts``), under their session
and CSRF cookies, for ``VIEWER_SECONDS`` after Django's full check of them (their session,
their user row, and that their password has not changed since they signed in): their page
then costs close to what an anonymous one does (no read but the version's). Signing out
shows at once, since it ends the cookie the header is kept under; a session ended elsewhere
(a password changed in another browser, an account closed) shows on this page within
``VIEWER_SECONDS``, and on every other page at once. The header's CSRF token (of the
sign-out form) is masked once per check rather than once per response: the mask is there
against compression probes that vary what a response reflects of a request, and a
signed-in viewer's page reflects nothing of it.
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
from django.utils.cache import patch_vary_headers

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
#: Signed-in viewers' headers a process keeps, and for how long after a full check.
KEPT_VIEWERS = 1024
VIEWER_SECONDS = 30


class _Kept:
    """Strings a process keeps for ``seconds``: the ``limit`` most recently used."""

    def __init__(self, limit: int, seconds: float) -> None:
        self._limit = limit
        self._seconds = seconds
        self._values: OrderedDict[tuple, tuple[float, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> str | None:
        with self._lock:
            kept = self._values.get(key)
            if kept is None or kept[0] <= time.monotonic():
                return None
            self._values.move_to_end(key)
            return kept[1]

    def put(self, key: tuple, value: str) -> None:
        with self._lock:
            self._values[key] = (time.monotonic() + self._seconds, value)
            self._values.move_to_end(key)
            while len(self._values) > self._limit:
                self._values.popitem(last=False)

    def get_or_make(self, key: tuple, make: Callable[[], str]) -> str:
        value = self.get(key)
        if value is None:
            value = make()
            self.put(key, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()


_pages = _Kept(KEPT_PAGES, KEPT_SECONDS)
_accounts = _Kept(KEPT_VIEWERS, VIEWER_SECONDS)


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
    # Browsers may keep the page but must ask again before showing it: it is live.
    if personal:
        response["Cache-Control"] = "private, no-cache"
    else:
        response["ETag"] = etag
        response["Cache-Control"] = "no-cache"
    if frame is not None:
        patch_vary_headers(response, ["Cookie"])
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
    skeleton = _pages.get_or_make(
        (tournament_id, version, part), lambda: frame(value(), FRAME_SLOTS)
    )
    if _anonymous_and_quiet(request):
        # The same for every such viewer: filled once per version and process.
        key = (tournament_id, version, part, request.path)
        return _pages.get_or_make(key, lambda: _filled(skeleton, request))
    return _filled(skeleton, request)


def _filled(skeleton: str, request: HttpRequest) -> str:
    """The skeleton with this request's frame: who is signed in, their CSRF token, their
    messages."""
    account = _account(request)
    messages = _messages(request)
    return skeleton.replace(ACCOUNT_SLOT, account, 1).replace(MESSAGES_SLOT, messages, 1)


def _account(request: HttpRequest) -> str:
    """The header naming who is signed in, kept as the module's docstring says."""
    key = (request.COOKIES.get(settings.SESSION_COOKIE_NAME), request.META.get("CSRF_COOKIE"))
    account = _accounts.get(key) if all(key) else None
    if account is None:
        user = request.user  # Django's full check; a failed one signs the session out
        token = get_token(request) if user.is_authenticated else ""
        context = {"request": request, "user": user, "csrf_token": token}
        account = render_to_string("web/_account.html", context)
        if user.is_authenticated and all(key):
            _accounts.put(key, account)
    return account


def _messages(request: HttpRequest) -> str:
    """The viewer's waiting messages. The message storage keeps them in its cookie, and
    there only marks those it had to put in the session: no cookie, no message."""
    if CookieStorage.cookie_name not in request.COOKIES:
        return ""
    return render_to_string("web/_messages.html", {"messages": get_messages(request)})


def _anonymous_and_quiet(request: HttpRequest) -> bool:
    """No session (so nobody signed in) and no message waiting, at the bare address: the
    frame is the same for every such request."""
    cookies = request.COOKIES
    return (
        settings.SESSION_COOKIE_NAME not in cookies
        and CookieStorage.cookie_name not in cookies
        and not request.META.get("QUERY_STRING")
    )


def kept_pages_forget() -> None:
    """Forget every page and header this process keeps (as clearing the shared cache forgets
    its own)."""
    _pages.clear()
    _accounts.clear()
