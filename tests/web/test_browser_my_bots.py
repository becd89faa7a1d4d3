"""An author's session in headless Chromium against a live server: sign in, upload a version
from their page and see it checked ready in the real sandbox, challenge a built-in bot, see
the result, and follow their own seat's view of one of its matches, also while its deal is
in play (screenshots in artifacts/screenshots/)."""

from __future__ import annotations

import re

import pytest

from bots.models import Bot
from bots.services.bots import builtin_bots_sync
from matches.models import Match
from tests.bots.uploads import GOOD_BOT
from tests.conftest import PASSWORD
from tests.ladder.conftest import play_pending
from tests.web.browser import PHONE, contrast_failures, overflows_sideways, screenshot
from tournaments.formats import Format
from tournaments.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.sandbox, pytest.mark.usefixtures("live_db")]

WAIT_MS = 20_000


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


@pytest.fixture
def author(alice, sandbox, code_store, settings, monkeypatch):
    """Alice with a Snag bot and no version yet, the game's built-in bots on the ladder.

    As the bots tests have it, an upload's check runs in the server's process, broker or
    not; as the ladder's browser test has it, a challenge's matches wait for the test to
    play them here (``play_pending``), so no worker is needed in either pass of the suite.
    """
    from bots.tasks import bot_version_check_task
    from tournaments.tasks import tournament_match_play, tournament_series_play

    settings.BAIZE_LADDER_SETS_PER_PAIRING = 1  # a check of one duplicate set
    monkeypatch.setattr(
        bot_version_check_task,
        "apply_async",
        lambda args, **options: bot_version_check_task.apply(args, throw=True),
    )
    for task in (tournament_match_play, tournament_series_play):
        monkeypatch.setattr(task, "apply_async", lambda *args, **options: None)
    builtin_bots_sync(game_id="snag")
    return Bot.objects.create(owner=alice, game="snag", name="alices-bot")


def cards_in(tab, selector: str) -> list[str]:
    return tab.eval_on_selector_all(
        f"{selector} [data-card]", "cards => cards.map(c => c.dataset.card)"
    )


def reads_well(tab, name: str) -> None:
    assert tab.locator("h1").count() == 1, name
    assert not contrast_failures(tab), (name, contrast_failures(tab))
    screenshot(tab, name)
    tab.set_viewport_size(PHONE)
    assert not overflows_sideways(tab), name
    tab.set_viewport_size({"width": 1280, "height": 900})


def test_an_author_uploads_challenges_and_follows_their_seat(page, live_server, author, browser):
    page.goto(f"{live_server.url}/my/bots/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/my/bots/$"))
    reads_well(page, "sign-in")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.click("#sign-in button[type=submit]")
    expect(page.locator("#signed-in-as")).to_have_text("alice")
    expect(page).to_have_url(f"{live_server.url}/my/bots/")

    mine = page.locator(f"#bot-{author.pk}")
    mine.locator("input[type=file]").set_input_files(
        files=[{"name": "bot.py", "mimeType": "text/x-python", "buffer": GOOD_BOT}]
    )
    mine.locator("select[name=runtime]").select_option("python")
    mine.locator("form.upload button[type=submit]").click()  # checked in the request
    expect(page.locator("#messages")).to_contain_text(
        "snag/alices-bot v1 uploaded for python: its check found it ready", timeout=WAIT_MS
    )
    expect(mine.locator('tr[data-version="1"] [data-status]')).to_have_text("ready")
    expect(mine.locator(".check-log")).to_have_count(1)
    reads_well(page, "my-bots")

    heuristic = mine.locator("select[name=opponent] option", has_text="heuristic v1")
    mine.locator("select[name=opponent]").select_option(heuristic.get_attribute("value"))
    mine.locator("input[name=sets]").fill("1")
    mine.locator("form.challenge button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("Challenge")
    expect(page.locator("#messages")).to_contain_text("started.")

    challenge = Tournament.objects.get(format=Format.CHALLENGE, organiser__username="alice")
    assert play_pending(challenge) == 2  # its one duplicate set, in the sandbox
    page.reload()
    expect(page.locator("#record")).to_have_text(re.compile(r"^[01]–[01]–[01]$"))
    expect(page.locator(".facts")).to_contain_text("Status finished")
    reads_well(page, "my-challenge")

    page.locator("#challenge-sets a[href^='/matches/']").first.click()
    match = Match.objects.get(pk=int(re.search(r"/matches/(\d+)/", page.url).group(1)))
    seat = match.seats.get(version__bot=author).seat
    page.locator(f'a[href="?view=seat{seat}"]').click()
    expect(page.locator("#table")).to_have_attribute("data-step", "0", timeout=WAIT_MS)
    assert len(cards_in(page, f'[data-zone="hand-{seat}"]')) == 5

    # While a match dealt these cards plays, the seat's owner still sees their own hand.
    # The page's requests end first: the live server shares the in-memory SQLite database,
    # whose tables a request still reading holds locked ("database table is locked").
    page.wait_for_load_state("networkidle")
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    page.reload()
    expect(page.locator("#table")).to_have_attribute("data-step", "0", timeout=WAIT_MS)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#table")).to_have_attribute("data-step", "1", timeout=WAIT_MS)
    expect(page.locator("#main")).to_contain_text(f"you see what the bot in seat {seat} was sent")
    assert cards_in(page, f'[data-zone="hand-{seat}"]')
    assert cards_in(page, f'[data-zone="hand-{1 - seat}"]') == []
    reads_well(page, "my-seat-view")

    stranger = browser.new_context().new_page()
    stranger.goto(f"{live_server.url}/matches/{match.pk}/?view=seat{seat}")
    expect(stranger.locator("#refusal")).to_contain_text(f"Sign in to see seat {seat}'s view")
    reads_well(stranger, "seat-view-refused")
    stranger.context.close()

    # Off the running match's page first: its viewer polls the seat's view, which a poll
    # landing after the sign-out would see refused.
    page.goto(f"{live_server.url}/my/bots/")
    page.locator("#account button", has_text="sign out").click()
    expect(page.locator("#account")).to_have_text("sign in")
    assert not page.errors
