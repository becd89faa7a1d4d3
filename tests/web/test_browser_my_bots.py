"""A new author's session in headless Chromium against a live server: sign up, see the API
token, create a C++ bot, upload its bot.cpp without naming a runtime and read its build log,
challenge a built-in bot, open a match the bot lost, download the log of its seat and the
bot's code, and play that match again at home with the command the page prints; then
follow the seat's own view, also while its deal is in play (screenshots in
artifacts/screenshots/)."""

from __future__ import annotations

import re
import shlex
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from bots.models import Bot
from bots.services.bots import builtin_bots_sync
from matches.models import Match
from tests.bots.uploads import FIRST_LEGAL_CPP
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
def server(sandbox, code_store, settings, monkeypatch):
    """The game's built-in bots on the ladder, and nothing else yet.

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


def download(tab, link, folder) -> str:
    """Click a download link; the file, saved under the name the server gave it."""
    with tab.expect_download() as started:
        link.click()
    saved = folder / started.value.suggested_filename
    started.value.save_as(saved)
    return saved.name


@pytest.mark.slow(seconds=40)
def test_a_new_author_signs_up_uploads_cpp_and_replays_a_lost_match_at_home(
    page, live_server, server, browser, tmp_path, monkeypatch
):
    page.goto(f"{live_server.url}/my/bots/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/my/bots/$"))
    reads_well(page, "sign-in")
    page.click("text=Sign up")
    page.fill("#id_username", "ada")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_password_again", PASSWORD)
    reads_well(page, "sign-up")
    page.click("#sign-up button[type=submit]")
    expect(page.locator("#signed-in-as")).to_have_text("ada")
    expect(page).to_have_url(f"{live_server.url}/my/bots/")

    # The token is the API's, shown when asked for.
    page.click("#api-token summary")
    expect(page.locator("#token")).to_have_text(Token.objects.get(user__username="ada").key)

    page.select_option("#id_game", "snag")
    page.fill("#id_name", "ada-cpp")
    page.fill("#id_description", "plays the first legal card")
    page.click("#bot-create button[type=submit]")
    expect(page.locator("#messages")).to_contain_text("snag/ada-cpp created")
    bot = Bot.objects.get(name="ada-cpp", owner__username="ada")

    # bot.cpp alone, no runtime named: the files say C++; built and checked in the request.
    mine = page.locator(f"#bot-{bot.pk}")
    mine.locator("input[type=file]").set_input_files(
        files=[{"name": "bot.cpp", "mimeType": "text/x-c++src", "buffer": FIRST_LEGAL_CPP}]
    )
    mine.locator("form.upload button[type=submit]").click()
    expect(page.locator("#messages")).to_contain_text(
        "snag/ada-cpp v1 uploaded for cpp, guessed from the files: its check found it ready",
        timeout=WAIT_MS,
    )
    mine.locator("summary", has_text="Build log").click()
    build_log = mine.locator(".build-log")
    expect(build_log).to_contain_text("$ g++ -std=c++20 -O2 -o bot *.cpp")
    expect(build_log).to_contain_text(re.compile(r"toolchain: g\+\+ .*\nbuilt in \d+\.\d s"))
    mine.locator("summary", has_text="Check log").click()
    expect(mine.locator(".check-log")).to_contain_text("== check match 1 of 2: set 1, your bot")
    reads_well(page, "my-bots")

    heuristic = mine.locator("select[name=opponent] option", has_text="heuristic v1")
    mine.locator("select[name=opponent]").select_option(heuristic.get_attribute("value"))
    mine.locator("input[name=sets]").fill("2")
    mine.locator("form.challenge button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("Challenge")
    challenge = Tournament.objects.get(format=Format.CHALLENGE, organiser__username="ada")
    assert play_pending(challenge) == 4  # its two duplicate sets, in the sandbox
    page.reload()
    expect(page.locator(".facts")).to_contain_text("Status finished")

    # A match it lost (the first legal card, every time, loses to the heuristic).
    played = Match.objects.filter(tournament_match__tournament=challenge).order_by("pk")
    lost = next(m for m in played if m.winner != m.seats.get(version__bot=bot).seat)
    seat = lost.seats.get(version__bot=bot).seat
    page.locator(f'#challenge-sets a[href="/matches/{lost.pk}/"]').click()
    tools = page.locator(f"#seat-{seat}-tools")
    expect(tools).to_contain_text(f"Seat {seat}: your bot v1, to debug")
    log_name = download(page, tools.locator("a.seat-log"), tmp_path)
    code_name = download(page, tools.locator("a", has_text="v1's code"), tmp_path)
    assert (log_name, code_name) == (f"match-{lost.pk}-seat{seat}.jsonl", "snag-ada-cpp-v1.zip")
    assert '"type":"match_started"' in (tmp_path / log_name).read_text().splitlines()[0]
    unzip, replay = page.locator(f"#seat-{seat}-replay").inner_text().splitlines()
    assert unzip == "unzip -o -d snag-ada-cpp-v1 snag-ada-cpp-v1.zip"
    assert replay == (
        f".venv/bin/python manage.py play --replay {log_name} --seat {seat} snag-ada-cpp-v1"
        " --runtime cpp"
    )
    reads_well(page, "my-lost-match")

    # At home: the files unpacked as the first line says, the second line played (in the
    # sandbox, as the suite runs uploaded code): the bot makes every recorded decision.
    with zipfile.ZipFile(tmp_path / code_name) as code:
        code.extractall(tmp_path / "snag-ada-cpp-v1")
    monkeypatch.chdir(tmp_path)
    out = StringIO()
    call_command(*shlex.split(replay)[2:], "--sandbox", "--quiet", stdout=out)
    assert "no difference" in out.getvalue(), out.getvalue()

    # Its own seat's view, also while a match dealt these cards plays.
    page.locator(f'a[href="?view=seat{seat}"]').click()
    expect(page.locator("#table")).to_have_attribute("data-step", "0", timeout=WAIT_MS)
    assert len(cards_in(page, f'[data-zone="hand-{seat}"]')) == 5
    # The page's requests end first: the live server shares the in-memory SQLite database,
    # whose tables a request still reading holds locked ("database table is locked").
    page.wait_for_load_state("networkidle")
    Match.objects.filter(pk=lost.pk).update(status=Match.Status.RUNNING)
    page.reload()
    expect(page.locator("#table")).to_have_attribute("data-step", "0", timeout=WAIT_MS)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#table")).to_have_attribute("data-step", "1", timeout=WAIT_MS)
    expect(page.locator("#main")).to_contain_text(f"you see what the bot in seat {seat} was sent")
    assert cards_in(page, f'[data-zone="hand-{seat}"]')
    assert cards_in(page, f'[data-zone="hand-{1 - seat}"]') == []

    stranger = browser.new_context().new_page()
    stranger.goto(f"{live_server.url}/matches/{lost.pk}/?view=seat{seat}")
    expect(stranger.locator("#refusal")).to_contain_text(f"Sign in to see seat {seat}'s view")
    stranger.goto(f"{live_server.url}/matches/{lost.pk}/")
    assert stranger.locator(f"#seat-{seat}-tools").count() == 0
    stranger.context.close()

    # Off the running match's page first: its viewer polls the seat's view, which a poll
    # landing after the sign-out would see refused.
    page.goto(f"{live_server.url}/my/bots/")
    page.locator("#account button", has_text="sign out").click()
    expect(page.locator("#account")).to_have_text("sign in")
    assert not page.errors
