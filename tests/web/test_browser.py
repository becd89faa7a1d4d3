"""The pages in headless Chromium against a live server: live standings, the replay viewer,
a bracket, and every page at desktop and phone width (screenshots in artifacts/)."""

from __future__ import annotations

import re

import pytest

from bots.services.bots import builtin_bots_sync
from matches.models import Match
from matches.selectors import match_event_count, match_event_records
from matches.services import match_create, match_seats_create
from tests.web.browser import PHONE, contrast_failures, overflows_sideways, screenshot
from tests.web.factories import (
    bot_versions,
    match_play_here,
    pending_matches,
    play_out,
    tournament_started,
)
from tournaments.tasks import tournament_match_play

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("live_db")]

WAIT_MS = 20_000


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def cards_in(tab, selector: str) -> list[str]:
    return tab.eval_on_selector_all(
        f"{selector} [data-card]", "cards => cards.map(c => c.dataset.card)"
    )


def at_step(tab, step: int) -> None:
    expect(tab.locator("#table")).to_have_attribute("data-step", str(step), timeout=WAIT_MS)


def log_of(match: Match) -> tuple[list[dict], list[list[str]]]:
    events = match_event_records(match=match)
    decisions = [event.payload for event in events if event.type == "decision"]
    orders = [event.payload["order"] for event in events if event.type == "shuffle"]
    return decisions, orders


def test_standings_change_on_the_open_page_as_the_matches_finish(page, live_server):
    tournament = tournament_started(builtin_bots_sync(game_id="snag"), options={"target": 10})
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    progress, scores = page.locator("#match-progress"), page.locator('[data-col="score"]')
    expect(progress).to_have_text("0 of 2 matches played")
    expect(scores).to_have_text(["0", "0"])
    page.evaluate("window.stillTheSamePage = true")

    first, second = pending_matches(tournament)
    tournament_match_play(first)  # real bots, real runner
    expect(progress).to_have_text("1 of 2 matches played", timeout=WAIT_MS)
    tournament_match_play(second)
    expect(progress).to_have_text("2 of 2 matches played", timeout=WAIT_MS)
    expect(page.locator("#tournament-status")).to_have_text("finished", timeout=WAIT_MS)

    shown = [float(s.replace("½", ".5")) for s in scores.all_inner_texts()]
    assert sorted(shown) in ([0.0, 1.0], [0.5, 0.5])
    assert page.evaluate("window.stillTheSamePage") is True
    assert not page.errors


@pytest.fixture
def finished_match():
    # The default target of 50 is out of reach in one deal (short of a ten-card suit), so
    # the match has the second deal the test jumps to.
    tournament = tournament_started(bot_versions(2), options={"target": 50})
    # Both matches of the set: while its twin is unplayed, a match shows no moves.
    play_out(tournament, limit=2)
    match = Match.objects.filter(tournament_match__tournament=tournament, status="finished")[0]
    shuffles = match_event_count(match_id=match.pk, type="shuffle")
    assert shuffles >= 2, "the test needs a second deal"
    return match


def test_stepping_through_a_replay_shows_the_cards_of_the_event_log(
    page, live_server, finished_match
):
    decisions, orders = log_of(finished_match)
    page.goto(f"{live_server.url}/matches/{finished_match.pk}/")
    at_step(page, 0)
    # docs/rules/snag.md: positions 0-4 to the non-dealer (seat 0 in deal 1), 5-9 to the
    # dealer, then the bar.
    assert sorted(cards_in(page, '[data-zone="hand-0"]')) == sorted(orders[0][0:5])
    assert sorted(cards_in(page, '[data-zone="hand-1"]')) == sorted(orders[0][5:10])
    assert cards_in(page, '[data-zone="bar"]') == orders[0][10:15]

    for step, decision in enumerate(decisions[:16], start=1):
        page.keyboard.press("ArrowRight")
        at_step(page, step)
        [(kind, card)] = decision["action"].items()
        seat = decision["seat"]
        if kind in ("bar", "play"):
            assert card in cards_in(page, '[data-zone="trick"]'), (step, decision)
        if kind == "take":
            assert card in cards_in(page, f'[data-zone="taken-{seat}"]'), (step, decision)
        assert card not in cards_in(page, f'[data-zone="hand-{seat}"]')

    deal_two = page.locator("#jump optgroup[label='Deal 2'] option").first.get_attribute("value")
    page.select_option("#jump", deal_two)
    at_step(page, int(deal_two))
    # The dealer alternates: in deal 2 seat 0 deals, so seat 1 gets positions 0-4.
    assert sorted(cards_in(page, '[data-zone="hand-1"]')) == sorted(orders[1][0:5])
    assert sorted(cards_in(page, '[data-zone="hand-0"]')) == sorted(orders[1][5:10])

    page.locator("body").focus()
    page.keyboard.press("End")
    at_step(page, len(decisions))
    expect(page.locator('[data-score="0"]')).to_have_text(str(finished_match.scores[0]))
    expect(page.locator('[data-score="1"]')).to_have_text(str(finished_match.scores[1]))
    expect(page.locator("#replay-status")).to_contain_text("wins")
    assert not page.errors


def test_the_viewer_answers_the_keyboard(page, live_server, finished_match):
    page.goto(f"{live_server.url}/matches/{finished_match.pk}/")
    at_step(page, 0)
    page.keyboard.press("PageDown")
    at_step(page, 5)  # a Snag trick is five decisions
    page.keyboard.press("Shift+PageDown")
    at_step(page, 25)  # and a deal five tricks
    page.keyboard.press("Home")
    at_step(page, 0)
    page.keyboard.press("Space")
    expect(page.locator("#play-button")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#table")).not_to_have_attribute("data-step", "0", timeout=WAIT_MS)
    page.keyboard.press("Space")
    expect(page.locator("#play-button")).to_have_attribute("aria-pressed", "false")
    page.locator("#move-log button").nth(9).click()
    at_step(page, 10)
    expect(page.locator("#move-log li").nth(9)).to_have_attribute("aria-current", "step")


def test_a_running_match_shows_only_what_is_public(page, live_server, finished_match):
    Match.objects.filter(pk=finished_match.pk).update(status=Match.Status.RUNNING)
    decisions, orders = log_of(finished_match)
    page.goto(f"{live_server.url}/matches/{finished_match.pk}/#step=1")
    at_step(page, 1)
    assert cards_in(page, '[data-zone="hand-0"]') == cards_in(page, '[data-zone="hand-1"]') == []
    assert page.locator('[data-zone="hand-0"] .card.back').count() == 5
    assert cards_in(page, '[data-zone="trick"]') == [decisions[0]["action"]["bar"]]
    assert cards_in(page, '[data-zone="bar"]') == [
        c for c in orders[0][10:15] if c != decisions[0]["action"]["bar"]
    ]


def test_a_match_not_started_says_so_and_waits(page, live_server):
    tournament = tournament_started(bot_versions(2), options={"target": 10})
    match_id = pending_matches(tournament)[0]
    page.goto(f"{live_server.url}/matches/{match_id}/")
    expect(page.locator("#replay-status")).to_contain_text("has not started yet")
    assert page.locator("#table [data-card]").count() == 0
    assert not page.errors


def test_an_eight_bot_elimination_is_drawn_as_a_bracket(page, live_server):
    tournament = tournament_started(
        bot_versions(8), format="single_elimination", options={"target": 10}, name="Knock-out"
    )
    play_out(tournament)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    columns = page.locator(".bracket-column")
    expect(columns).to_have_count(3)
    assert [columns.nth(i).locator(".bracket-pairing").count() for i in range(3)] == [4, 2, 1]
    assert [columns.nth(i).locator("h3").inner_text() for i in range(3)] == [
        "Quarter-finals",
        "Semi-finals",
        "Final",
    ]
    pairings = page.locator(".bracket-pairing")
    for i in range(7):
        expect(pairings.nth(i).locator(".side.winner")).to_have_count(1)
    first_round = set(columns.nth(0).locator(".side span:first-child").all_inner_texts())
    assert first_round == {f"bot-{n}" for n in range(1, 9)}
    champion = columns.nth(2).locator(".side.winner span").first.inner_text()
    assert page.locator("#standings tbody tr").first.locator("a").inner_text() == champion
    screenshot(page, "tournament-elimination")


@pytest.fixture
def site():
    """Some of everything: a round robin, a knock-out, a double elimination, a running match."""
    round_robin = tournament_started(
        bot_versions(6), options={"target": 20}, name="Spring round robin", sets_per_pair=1
    )
    play_out(round_robin)
    double = tournament_started(
        bot_versions(4, prefix="de"),
        format="double_elimination",
        options={"target": 10},
        name="Double trouble",
    )
    play_out(double)
    running = tournament_started(
        bot_versions(4, prefix="live"), options={"target": 10}, name="Live cup"
    )
    play_out(running, limit=3)
    match_id = pending_matches(running)[0]
    match_play_here(match_id)
    Match.objects.filter(pk=match_id).update(status=Match.Status.RUNNING)
    finished = Match.objects.filter(tournament_match__tournament=round_robin).first()
    bot = round_robin.entrants.order_by("position").first().version.bot
    spades = match_create(game_id="spades", seed=3, options={"max_hands": 2})
    match_seats_create(match=spades, versions=bot_versions(2, game_id="spades", prefix="sp"))
    match_play_here(spades.pk)
    return {
        "home": "/",
        "tournaments": "/tournaments/",
        "tournament-round-robin": f"/tournaments/{round_robin.pk}/",
        "tournament-double-elimination": f"/tournaments/{double.pk}/",
        "tournament-running": f"/tournaments/{running.pk}/",
        "leaderboard": "/games/snag/",
        "bot": f"/bots/{bot.pk}/",
        "match-replay": f"/matches/{finished.pk}/#step=12",
        "match-running": f"/matches/{match_id}/#step=7",
        "match-spades": f"/matches/{spades.pk}/#step=3",
    }


def test_every_page_reads_well_at_desktop_and_phone_width(page, live_server, site):
    for name, path in site.items():
        page.goto(live_server.url + path)
        if name.startswith("match"):
            at_step(page, int(re.search(r"step=(\d+)", path).group(1)))
            # One "Hand" per seat; the centre's zones are headed by what they are about.
            headings = page.locator("#table h3").all_inner_texts()
            assert [h.lower() for h in headings].count("hand") == 2, (name, headings)
        assert page.locator("h1").count() == 1, name
        assert not contrast_failures(page), (name, contrast_failures(page))
        phone = screenshot(page, name)
        assert phone.stat().st_size > 0
        page.set_viewport_size(PHONE)
        assert not overflows_sideways(page), name
        page.set_viewport_size({"width": 1280, "height": 900})
    assert not page.errors


def test_the_api_docs_render_with_every_outside_request_refused(page, live_server):
    refused = []

    def local_only(route):
        if re.match(r"^https?://(127\.0\.0\.1|localhost)(:\d+)?/", route.request.url):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page.route("**/*", local_only)
    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Baize API", timeout=WAIT_MS)
    expect(page.locator(".opblock-summary-path").first).to_be_visible(timeout=WAIT_MS)
    assert "/api/tournaments/" in page.locator(".opblock-summary-path").all_inner_texts()
    assert not refused, refused
    assert not page.errors
