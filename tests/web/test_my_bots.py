"""An author's own page: their bots and versions with what only they see, and the forms that
upload a version, start a challenge and start a version test through the API's services."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.throttling import ScopedRateThrottle

from bots.models import Bot, BotVersion
from tests.bots.uploads import GOOD_BOT, SYNTAX_ERROR
from tests.ladder.conftest import bots_of, rate
from tournaments.formats import Format
from tournaments.models import Tournament
from tournaments.ratings.models import Rating

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def messages_of(response) -> str:
    found = re.search(
        r'<ul class="messages" id="messages" role="status">(.*?)</ul>', text(response)
    )
    return found.group(1) if found else ""


def section(response, bot: Bot) -> str:
    """The part of the page about ``bot``."""
    html = text(response)
    start = html.index(f'id="bot-{bot.pk}"')
    return html[start : html.index("</section>", start)]


@pytest.fixture
def signed_in(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def alices_bot(alice):
    return Bot.objects.create(owner=alice, game="snag", name="alices-bot")


def upload(client: Client, bot: Bot, name: str, data: bytes, **fields):
    file = SimpleUploadedFile(name, data, content_type="application/octet-stream")
    return client.post(f"/my/bots/{bot.pk}/versions/", {"file": file, **fields}, follow=True)


# The page ----------------------------------------------------------------------------------


def test_a_visitor_is_sent_to_sign_in_and_back(client, db):
    response = client.get("/my/bots/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/my/bots/"


def test_the_page_lists_only_the_author_s_own_bots(signed_in, alice, bob):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)

    page = signed_in.get("/my/bots/")

    assert page.status_code == 200
    assert f'id="bot-{mine.bot_id}"' in text(page) and mine.bot.name in text(page)
    assert f'id="bot-{theirs.bot_id}"' not in text(page)


def test_the_bot_page_sends_its_owner_alone_to_the_logs(signed_in, client, alices_bot, bob):
    owner_note = f'href="/my/bots/#bot-{alices_bot.pk}"'
    assert owner_note in text(signed_in.get(f"/bots/{alices_bot.pk}/"))
    other = Client()
    assert owner_note not in text(other.get(f"/bots/{alices_bot.pk}/"))
    other.force_login(bob)
    assert owner_note not in text(other.get(f"/bots/{alices_bot.pk}/"))


def test_each_version_shows_its_status_reason_check_log_runtime_series_and_rating(
    signed_in, alices_bot
):
    BotVersion.objects.create(
        bot=alices_bot,
        number=1,
        content_hash="1" * 64,
        status="rejected",
        status_reason="in seat 0, your bot forfeited (crash)",
        check_log="Traceback: my strategy is not written yet",
    )
    rated = BotVersion.objects.create(
        bot=alices_bot, number=2, content_hash="2" * 64, status="ready", plays_series=True
    )
    rate(rated, above_new=True)
    rating = Rating.objects.get(version=rated)

    shown = section(signed_in.get("/my/bots/"), alices_bot)

    rows = re.findall(r'<tr data-version="(\d+)">(.*?)</tr>', shown)
    assert [number for number, _ in rows] == ["2", "1"]
    newest, oldest = rows[0][1], rows[1][1]
    assert "ready" in newest and "plays series" in newest
    assert f"<strong>{rating.conservative:.2f}</strong>" in newest
    assert f"({rating.mu:.2f} ± {rating.sigma:.2f})" in newest
    assert "rejected" in oldest and "unrated" in oldest and "python" in oldest
    assert "your bot forfeited (crash)" in shown and "my strategy is not written yet" in shown


def test_the_build_log_shows_for_a_runtime_that_builds(signed_in, alices_bot):
    BotVersion.objects.create(
        bot=alices_bot,
        number=1,
        content_hash="1" * 64,
        runtime="cpp",
        status="rejected",
        build_log="bot.cpp:3: error: expected ';'",
    )

    shown = section(signed_in.get("/my/bots/"), alices_bot)

    assert 'class="log-text build-log"' in shown and "expected &#x27;;&#x27;" in shown


def test_the_upload_form_offers_every_runtime_of_the_table(signed_in, alices_bot):
    from arena.runtimes import RUNTIMES

    shown = section(signed_in.get("/my/bots/"), alices_bot)

    offered = re.findall(r'<option value="([^"]+)"', shown.split('name="runtime"')[1])
    assert offered[: len(RUNTIMES)] == list(RUNTIMES)
    assert 'enctype="multipart/form-data"' in shown and "csrfmiddlewaretoken" in shown


# A new bot and the API token --------------------------------------------------------------


def test_a_bot_created_on_the_page_is_the_api_s_bot(signed_in, alice):
    response = signed_in.post(
        "/my/bots/new/",
        {"game": "jam", "name": "jam-one", "description": "first try"},
        follow=True,
    )

    bot = Bot.objects.get(name="jam-one")
    assert (bot.owner, bot.game, bot.description, bot.on_ladder) == (
        alice,
        "jam",
        "first try",
        False,
    )
    assert response.redirect_chain[-1][0] == f"/my/bots/#bot-{bot.pk}"
    assert "jam/jam-one created: upload its first version below." in messages_of(response)
    assert f'id="bot-{bot.pk}"' in text(response) and "off the ladder" in section(response, bot)


def test_a_bot_is_on_the_ladder_when_its_box_is_ticked_as_it_is_at_first(signed_in):
    form = text(signed_in.get("/my/bots/")).split('id="bot-create"')[1]
    assert re.search(r'<input type="checkbox" name="on_ladder"[^>]* checked', form)

    signed_in.post("/my/bots/new/", {"game": "snag", "name": "laddered", "on_ladder": "on"})

    assert Bot.objects.get(name="laddered").on_ladder is True


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"name": "alices-bot"}, "a snag bot named &#x27;alices-bot&#x27; exists already"),
        ({"name": "two words"}, "Enter a valid &quot;slug&quot; consisting of letters"),
        ({"game": "chess"}, "Select a valid choice"),
    ],
    ids=["taken", "not-a-slug", "no-such-game"],
)
def test_a_refused_bot_says_why_beside_the_field_and_keeps_what_was_typed(
    signed_in, alices_bot, fields, words
):
    given = {"game": "snag", "name": "alices-bot", "description": "kept as typed", **fields}

    response = signed_in.post("/my/bots/new/", given)

    assert response.status_code == 400
    assert words in text(response)
    assert "kept as typed</textarea>" in text(response)
    assert Bot.objects.count() == 1


def test_the_page_shows_the_author_s_token_and_replaces_it_when_asked(signed_in, alice):
    from rest_framework.authtoken.models import Token

    first = signed_in.get("/my/bots/")
    assert 'id="no-token"' in text(first) and first["Cache-Control"] == "private, no-store"

    made = signed_in.post("/my/token/", follow=True)
    token = Token.objects.get(user=alice).key
    assert made.redirect_chain[-1][0] == "/my/bots/?token=shown#api-token"
    assert f'<span id="token">{token}</span>' in text(made)
    assert '<details class="panel api-token" id="api-token" open>' in text(made)

    replaced = signed_in.post("/my/token/", follow=True)
    assert "the old one no longer works" in messages_of(replaced)
    assert Token.objects.get(user=alice).key not in (token, "")
    assert Client().get("/api/bots/", HTTP_AUTHORIZATION=f"Token {token}").status_code == 401


# Uploads -----------------------------------------------------------------------------------


def test_an_upload_from_the_page_becomes_a_version_through_the_api_s_service(
    signed_in, alices_bot, code_store
):
    response = upload(signed_in, alices_bot, "bot.py", GOOD_BOT, runtime="python")

    assert response.redirect_chain[-1][0] == f"/my/bots/#bot-{alices_bot.pk}"
    version = BotVersion.objects.get(bot=alices_bot)
    assert (version.number, version.runtime, version.status) == (1, "python", "pending")
    assert "snag/alices-bot v1 uploaded for python: it is being checked" in messages_of(response)
    assert (code_store / version.content_hash / "bot.py").read_bytes() == GOOD_BOT


def test_an_upload_naming_no_runtime_is_for_the_last_version_s_or_as_the_files_say(
    signed_in, alices_bot, code_store
):
    BotVersion.objects.create(bot=alices_bot, number=1, content_hash="1" * 64, runtime="cpp")
    shown = section(signed_in.get("/my/bots/"), alices_bot)
    assert '<option value="" selected>As the last version, C++20' in shown

    cpp = upload(signed_in, alices_bot, "bot.cpp", b"int main() {}\n", runtime="")
    python = upload(signed_in, alices_bot, "bot.py", GOOD_BOT, runtime="")

    assert "v2 uploaded for cpp, the bot&#x27;s last version&#x27;s:" in messages_of(cpp)
    assert "v3 uploaded for python, guessed from the files:" in messages_of(python)
    runtimes = BotVersion.objects.filter(number__gt=1).order_by("number")
    assert list(runtimes.values_list("runtime", flat=True)) == ["cpp", "python"]


@pytest.mark.parametrize(
    "name, data, fields, words",
    [
        ("bad.py", SYNTAX_ERROR, {}, "bad.py line 3"),
        ("bot.py", GOOD_BOT, {"runtime": "cobol"}, "cobol"),
        ("bot.exe", GOOD_BOT, {}, "(for executable, guessed from the files) was refused: bot is"),
        ("bot.exe", GOOD_BOT, {"runtime": "python"}, "(for python) was refused: upload a .py"),
    ],
    ids=["syntax", "runtime", "file-guessed", "file-for-python"],
)
def test_a_refused_upload_says_why_on_the_page_and_changes_nothing(
    signed_in, alices_bot, code_store, name, data, fields, words
):
    response = upload(signed_in, alices_bot, name, data, **fields)

    assert response.status_code == 200
    shown = messages_of(response)
    assert "The upload to alices-bot" in shown and "was refused:" in shown and words in shown
    assert not BotVersion.objects.exists()


def test_the_same_code_twice_is_refused_naming_the_version_it_is(signed_in, alices_bot, code_store):
    upload(signed_in, alices_bot, "bot.py", GOOD_BOT)

    again = upload(signed_in, alices_bot, "bot.py", GOOD_BOT)

    assert "this code is already version 1 of snag/alices-bot" in messages_of(again)
    assert BotVersion.objects.count() == 1


def test_an_upload_without_a_file_says_so(signed_in, alices_bot):
    response = signed_in.post(f"/my/bots/{alices_bot.pk}/versions/", {}, follow=True)
    assert "attach the bot as a multipart file field named" in messages_of(response)


def test_an_upload_past_the_largest_limit_is_refused_before_it_is_stored(
    signed_in, alices_bot, code_store, monkeypatch
):
    monkeypatch.setattr("bots.upload_files.upload_size_limit", lambda: 1024)

    barely = upload(signed_in, alices_bot, "bot.py", GOOD_BOT + b"#" * 2048)
    far = upload(signed_in, alices_bot, "bot.py", GOOD_BOT + b"#" * 100_000)

    assert "the upload is larger than 1024 bytes" in messages_of(barely)
    assert "the upload is larger than 1024 bytes" in messages_of(far)
    assert not BotVersion.objects.exists()


def test_an_upload_to_another_author_s_bot_is_a_page_that_says_whose_it_is(
    client, bob, alices_bot, code_store
):
    client.force_login(bob)

    response = upload(client, alices_bot, "bot.py", GOOD_BOT)

    assert response.status_code == 403
    assert "This bot (snag/alices-bot) belongs to another author: only its owner" in text(response)
    assert not BotVersion.objects.exists()


def test_an_upload_without_the_form_s_csrf_token_is_refused(alice, alices_bot, code_store):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = upload(client, alices_bot, "bot.py", GOOD_BOT)

    assert response.status_code == 403 and "security token (CSRF)" in text(response)
    assert not BotVersion.objects.exists()


def test_uploads_from_the_page_count_against_the_api_s_upload_limit(
    signed_in, alices_bot, code_store, monkeypatch
):
    rates = {**ScopedRateThrottle.THROTTLE_RATES, "upload": "1/hour"}
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)
    upload(signed_in, alices_bot, "bot.py", GOOD_BOT)

    refused = upload(signed_in, alices_bot, "bot.py", GOOD_BOT + b"# v2\n")

    assert "Too many uploads: try again in" in messages_of(refused)
    assert BotVersion.objects.count() == 1


def test_the_forms_send_a_visitor_to_sign_in_then_to_their_page(client, alices_bot):
    for path in (f"/my/bots/{alices_bot.pk}/versions/", "/my/challenges/", "/my/version-tests/"):
        response = client.post(path, {})
        assert response["Location"] == "/accounts/login/?next=/my/bots/", path
    assert not BotVersion.objects.exists() and not Tournament.objects.exists()


# Challenges and version tests --------------------------------------------------------------


def test_a_challenge_started_from_the_page_is_the_api_s_challenge(signed_in, alice, bob):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    assert f'<option value="{theirs.pk}">' in section(signed_in.get("/my/bots/"), mine.bot)

    response = signed_in.post(
        "/my/challenges/", {"version": mine.pk, "opponent": theirs.pk, "sets": 2}, follow=True
    )

    challenge = Tournament.objects.get(format=Format.CHALLENGE)
    assert response.redirect_chain[-1][0] == f"/challenges/{challenge.pk}/"
    assert challenge.organiser == alice and challenge.sets_per_pair == 2
    assert f"Challenge: {mine.bot.name} v1 v {theirs.bot.name} v1: started." in messages_of(
        response
    )
    assert challenge.name in text(signed_in.get("/my/bots/"))


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"sets": 0}, "sets must be from 1 to 50, got 0"),
        ({"sets": "many"}, "sets: Enter a whole number"),
        ({"opponent": 999_999}, "there is no bot version 999999"),
        ({"same": True}, "a version cannot play itself"),
    ],
    ids=["sets", "not-a-number", "no-such-version", "itself"],
)
def test_a_refused_challenge_says_why_on_the_page(signed_in, alice, bob, fields, words):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    form = {"version": mine.pk, "opponent": theirs.pk, "sets": 1, **fields}
    if form.pop("same", False):
        form["opponent"] = mine.pk

    response = signed_in.post("/my/challenges/", form, follow=True)

    assert response.redirect_chain[-1][0] == "/my/bots/"
    assert f"The challenge was not started: {words}" in messages_of(response)
    assert not Tournament.objects.exists()


def test_a_challenge_with_another_author_s_version_is_refused(signed_in, bob):
    theirs, other = bots_of(bob, 2)

    response = signed_in.post(
        "/my/challenges/", {"version": theirs.pk, "opponent": other.pk, "sets": 1}, follow=True
    )

    assert "is not one of your bots" in messages_of(response)
    assert not Tournament.objects.exists()


def test_a_version_test_started_from_the_page_is_the_api_s_version_test(signed_in, alice):
    candidate, baseline = bots_of(alice, 2)

    response = signed_in.post(
        "/my/version-tests/", {"candidate": candidate.pk, "baseline": baseline.pk}, follow=True
    )

    test = Tournament.objects.get(format=Format.VERSION_TEST)
    assert response.redirect_chain[-1][0] == f"/version-tests/{test.pk}/"
    assert test.organiser == alice and test.version_test.max_sets == 1000
    assert f"{test.name}: started." in messages_of(response)


def test_a_version_test_against_someone_else_s_version_is_refused(signed_in, alice, bob):
    [candidate] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)

    response = signed_in.post(
        "/my/version-tests/", {"candidate": candidate.pk, "baseline": theirs.pk}, follow=True
    )

    assert "The version test was not started:" in messages_of(response)
    assert "is not one of your bots" in messages_of(response)
    assert not Tournament.objects.exists()
