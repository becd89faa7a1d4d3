"""The public pages: thin views that call one selector and render one template."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string

from bots.models import Bot
from errors import DomainError, NotAllowed, NotFound
from games.rules import GAMES
from matches.models import Match
from matches.selectors import match_event_records
from matches.visibility import match_access, match_fields
from tournaments.formats import Format
from tournaments.models import Tournament
from tournaments.queue_api import queue_view
from tournaments.queueing import queue_snapshot
from tournaments.ratings import selectors as rating_selectors

from . import ladder_pages, live, selectors
from .charts import line_chart
from .match_seats import seats_to_debug
from .replays import TIMELINE_SHAPE, Timeline, match_timeline

PAGE_SIZE = 25


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "web/home.html", {"page": selectors.home_page()})


def tournament_list(request: HttpRequest) -> HttpResponse:
    game = request.GET.get("game") if request.GET.get("game") in GAMES else None
    status = request.GET.get("status")
    status = status if status in Tournament.Status.values else None
    tournaments = selectors.tournaments_with_progress().order_by("-created_at", "-id")
    if game:
        tournaments = tournaments.filter(game=game)
    if status:
        tournaments = tournaments.filter(status=status)
    page = Paginator(tournaments, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"page": page, "game": game, "status": status, "games": GAMES.values()}
    context["statuses"] = Tournament.Status.values
    return render(request, "web/tournament_list.html", context)


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return live.tournament_response(
        request,
        pk,
        "page",
        lambda: _tournament_main(pk),
        frame=lambda main, slots: render_to_string(
            "web/tournament.html", {**main, "frame_slots": slots}, request
        ),
    )


def tournament_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The changing part of the tournament page, which the page polls for."""
    return live.tournament_response(
        request,
        pk,
        "live",
        lambda: _tournament_html(get_object_or_404(Tournament, pk=pk), "web/_tournament_live.html"),
    )


def _tournament_main(pk: int) -> dict[str, str]:
    """The page's title and main part: the same for every viewer, so rendered without the
    request (nothing of a viewer can reach the cache)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    main = _tournament_html(tournament, "web/_tournament_main.html")
    return {"title": tournament.name, "main": main}


def _tournament_html(tournament: Tournament, template: str) -> str:
    page = selectors.tournament_page(tournament=tournament)
    return render_to_string(template, {"page": page, "tournament": tournament})


def game_detail(request: HttpRequest, game_id: str) -> HttpResponse:
    if game_id not in GAMES:
        raise Http404(f"no game {game_id!r}")
    ratings = rating_selectors.leaderboard(game_id=game_id)
    page = Paginator(ratings, 50).get_page(request.GET.get("page"))
    tournaments = selectors.tournaments_with_progress().filter(game=game_id)
    context = {
        "game": GAMES[game_id].describe(),
        "page": page,
        "tournaments": tournaments.order_by("-created_at", "-id")[: selectors.RECENT],
    }
    return render(request, "web/game.html", context)


def bot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    asked = request.GET.get("version", "")
    if asked and not (asked.isascii() and asked.isdigit() and len(asked) <= 9):
        return HttpResponseBadRequest(f"version must be a version number, not {asked[:20]!r}")
    try:
        page = selectors.bot_page(bot=bot, version_number=int(asked) if asked else None)
    except NotFound as error:
        raise Http404(error.message) from None
    changes = list(rating_selectors.rating_history(bot_id=bot.pk))
    context = {
        "page": page,
        "history": changes,
        "chart": _rating_chart(changes),
    }
    return render(request, "web/bot.html", context)


def _rating_chart(changes: list[Any]) -> Any:
    """The estimate after each rated set, its ±3σ band, and the conservative rating."""
    if not changes:
        return None
    mus = [changes[0].mu_before] + [change.mu_after for change in changes]
    sigmas = [changes[0].sigma_before] + [change.sigma_after for change in changes]
    lows = [mu - 3 * sigma for mu, sigma in zip(mus, sigmas, strict=True)]
    highs = [mu + 3 * sigma for mu, sigma in zip(mus, sigmas, strict=True)]
    return line_chart([mus, lows], band=(lows, highs))


def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    page = selectors.match_page(match_id=pk)
    if page is None:
        raise Http404(f"no match {pk}")
    try:
        access = match_access(match=page.match, user=request.user, view=request.GET.get("view"))
    except NotAllowed as error:
        raise PermissionDenied(error.message) from None
    except DomainError as error:
        return HttpResponseBadRequest(error.message)
    timeline = _timeline(page.match) if not access.lens.moves_withheld else Timeline().as_json()
    context = {
        "page": page,
        "access": access,
        # Only the seats whose bot the viewer owns (all for staff); none for a visitor.
        "seats_to_debug": (
            seats_to_debug(match=page.match, user=request.user)
            if request.user.is_authenticated
            else []
        ),
        "shown": match_fields(page.match, deal_in_play=access.deal_withheld),
        "timeline": timeline,
        "chart": line_chart(list(zip(*timeline["scores"], strict=True)) or [[0], [0]]),
        "viewer": {
            "match": page.match.pk,
            "game": page.match.game,
            "status": page.match.status,
            "view": access.view.value,
            "players": [str(version.bot.name) if version else "?" for version in page.players],
        },
    }
    response = render(request, "web/match.html", context)
    if context["seats_to_debug"]:
        # It holds a bot's stderr, its owner's alone: no cache keeps it.
        response["Cache-Control"] = "private, no-store"
    return response


def _timeline(match: Match) -> dict[str, Any]:
    """The match's chapters; a finished match's never change, so they are kept."""
    if match.status != Match.Status.FINISHED:
        return match_timeline(match_event_records(match=match)).as_json()
    key = f"web:match:{match.pk}:timeline:{TIMELINE_SHAPE}"
    timeline = cache.get(key)
    if timeline is None:
        timeline = match_timeline(match_event_records(match=match)).as_json()
        cache.set(key, timeline, None)
    return timeline


def ladder(request: HttpRequest, game_id: str) -> HttpResponse:
    if game_id not in GAMES:
        raise Http404(f"no game {game_id!r}")
    return render(request, "web/ladder.html", {"page": ladder_pages.ladder_page(game_id=game_id)})


def challenge_detail(request: HttpRequest, pk: int) -> HttpResponse:
    challenge = get_object_or_404(Tournament, pk=pk, format=Format.CHALLENGE)
    page = ladder_pages.author_page(tournament=challenge)
    return render(request, "web/challenge.html", {"page": page})


def version_test_detail(request: HttpRequest, pk: int) -> HttpResponse:
    test = get_object_or_404(
        Tournament.objects.select_related("version_test"), pk=pk, format=Format.VERSION_TEST
    )
    page = ladder_pages.author_page(tournament=test)
    context = {"page": page, "bar_width": ladder_pages.LLR_BAR_WIDTH}
    return render(request, "web/version_test.html", context)


def queue(request: HttpRequest) -> HttpResponse:
    """The queue, for everyone: what waits, what runs, the workers, the expected waits."""
    return render(request, "web/queue.html", {"queue": queue_view(queue_snapshot())})
