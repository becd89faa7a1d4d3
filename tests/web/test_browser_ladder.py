"""The ladder, challenge and version-test pages in headless Chromium, at desktop and phone
width (screenshots in artifacts/screenshots/)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from bots.models import Bot
from ladder.services import challenge_create, ladder_for, ladder_tick, version_test_create
from tests.ladder.conftest import bots_of, play_pending
from tests.web.browser import (
    PHONE,
    contrast_failures,
    cut_at_the_right,
    overflows_sideways,
    screenshot,
)
from tournaments.models import Tournament
from tournaments.sprt import SprtParameters

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("live_db")]

SHORT = {"target": 10}


@pytest.fixture
def author_pages(alice, bob, settings):
    settings.BAIZE_LADDER_SETS_IN_FLIGHT = 10
    mine = bots_of(alice, 3)
    theirs = bots_of(bob, 2)
    # Names as long as they may be: the tables still fit a desktop's width.
    for number, version in enumerate([*mine, *theirs]):
        Bot.objects.filter(pk=version.bot_id).update(name=f"{number}-{'long-name-' * 6}"[:64])
    User.objects.filter(pk=bob.pk).update(username="bob-the-builder-of-card-playing-machines")
    ladder = ladder_for(game_id="snag")
    Tournament.objects.filter(pk=ladder.pk).update(options=SHORT)
    for _ in range(3):
        ladder_tick()
        play_pending(ladder)
    challenge = challenge_create(user=alice, version=mine[0], opponent=theirs[1], sets=3)
    test = version_test_create(
        user=alice, candidate=mine[0], baseline=mine[1], parameters=SprtParameters()
    )
    running = version_test_create(
        user=alice, candidate=mine[2], baseline=mine[1], parameters=SprtParameters()
    )
    for tournament in (challenge, test, running):
        Tournament.objects.filter(pk=tournament.pk).update(options=SHORT)
    play_pending(challenge)
    play_pending(test)
    return {
        "ladder": "/ladder/snag/",
        "challenge": f"/challenges/{challenge.pk}/",
        "version-test-decided": f"/version-tests/{test.pk}/",
        "version-test-running": f"/version-tests/{running.pk}/",
        "bot-head-to-head": f"/bots/{mine[0].bot_id}/",
    }


def test_the_ladder_and_the_authors_pages_read_well_at_desktop_and_phone_width(
    page, live_server, author_pages
):
    for name, path in author_pages.items():
        page.goto(live_server.url + path)
        assert page.locator("h1").count() == 1, name
        assert not contrast_failures(page), (name, contrast_failures(page))
        assert cut_at_the_right(page) == [], name
        screenshot(page, name)
        page.set_viewport_size(PHONE)
        assert not overflows_sideways(page), name
        page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + author_pages["ladder"])
    assert page.locator("#ladder-table tbody tr").count() == 5
    page.goto(live_server.url + author_pages["version-test-decided"])
    assert "Better" in page.locator("#verdict").inner_text()
    assert not page.errors
