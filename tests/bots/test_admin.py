"""The bots admin: a bot's name and description change, its versions and matches do not."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotVersion
from matches.models import MatchSeat, SeatStderr
from matches.services import match_create, match_seats_create

pytestmark = pytest.mark.django_db

ADMIN = "/admin/"
LISTS = ["bots/bot/", "bots/botversion/", "matches/matchseat/", "matches/seatstderr/"]
_numbers = itertools.count(1)


def bots_with_history(count: int) -> list[BotVersion]:
    """``count`` owned bots with one uploaded version each, seated in matches with stderr."""
    owner = User.objects.create_user(f"author-{next(_numbers)}")
    versions = []
    for _ in range(count):
        bot = Bot.objects.create(game="snag", name=f"bot-{next(_numbers)}", owner=owner)
        versions.append(
            BotVersion.objects.create(
                bot=bot, number=1, content_hash=f"{bot.pk:064x}", size=123, status="ready"
            )
        )
    for first, second in zip(versions, versions[1:] + versions[:1], strict=True):
        match = match_create(game_id="snag", seed=next(_numbers), options={"target": 10})
        seat, _ = match_seats_create(match=match, versions=[first, second])
        SeatStderr.objects.create(seat=seat, text="thinking\n")
    return versions


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, response.content[:500]
    return len(captured)


@pytest.mark.parametrize("page", LISTS)
def test_every_list_costs_the_same_queries_for_few_or_many_rows(admin_client, page):
    bots_with_history(2)
    few = queries(admin_client, ADMIN + page)
    bots_with_history(8)
    assert queries(admin_client, ADMIN + page) == few


def test_a_bots_name_and_description_change_but_not_its_game_or_owner(admin_client):
    version = bots_with_history(1)[0]
    bot, url = version.bot, f"{ADMIN}bots/bot/{version.bot_id}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200 and bot.owner.username.encode() in page.content
    posted = {
        "name": "renamed",
        "description": "plays low",
        "game": "jam",
        "owner": str(User.objects.create_user("thief").pk),
        "versions-TOTAL_FORMS": "0",
        "versions-INITIAL_FORMS": "1",
    }
    assert admin_client.post(url, posted).status_code == 302
    bot.refresh_from_db()
    assert (bot.name, bot.description, bot.game) == ("renamed", "plays low", "snag")
    assert bot.owner == version.bot.owner


def test_a_bot_cannot_take_the_name_of_another_bot_of_its_game(admin_client):
    first, second = bots_with_history(2)
    posted = {
        "name": second.bot.name,
        "description": "",
        "versions-TOTAL_FORMS": "0",
        "versions-INITIAL_FORMS": "1",
    }
    refused = admin_client.post(f"{ADMIN}bots/bot/{first.bot_id}/change/", posted)
    assert refused.status_code == 200 and b"already has a bot named" in refused.content
    assert Bot.objects.get(pk=first.bot_id).name == first.bot.name


def test_bots_are_neither_added_nor_deleted_here(admin_client):
    version = bots_with_history(1)[0]
    assert admin_client.get(f"{ADMIN}bots/bot/add/").status_code == 403
    assert admin_client.post(f"{ADMIN}bots/bot/{version.bot_id}/delete/").status_code == 403
    assert Bot.objects.filter(pk=version.bot_id).exists()


def test_a_stored_version_is_shown_and_never_changed(admin_client):
    version = bots_with_history(1)[0]
    url = f"{ADMIN}bots/botversion/{version.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200 and version.content_hash.encode() in page.content
    assert b'name="content_hash"' not in page.content, "shown, not a form field"
    assert admin_client.post(url, {"status": "rejected", "size": "1"}).status_code == 403
    assert admin_client.get(f"{ADMIN}bots/botversion/add/").status_code == 403
    assert admin_client.post(f"{ADMIN}bots/botversion/{version.pk}/delete/").status_code == 403
    version.refresh_from_db()
    assert (version.status, version.size) == ("ready", 123)


def test_seats_and_their_stderr_are_read_only(admin_client):
    bots_with_history(2)
    stderr = SeatStderr.objects.first()
    page = admin_client.get(f"{ADMIN}matches/seatstderr/{stderr.pk}/change/")
    assert page.status_code == 200 and b"thinking" in page.content
    seat = MatchSeat.objects.first()
    for model, pk in (("matches/matchseat", seat.pk), ("matches/seatstderr", stderr.pk)):
        assert admin_client.get(f"{ADMIN}{model}/add/").status_code == 403
        assert admin_client.post(f"{ADMIN}{model}/{pk}/change/", {}).status_code == 403
        assert admin_client.post(f"{ADMIN}{model}/{pk}/delete/").status_code == 403
    assert SeatStderr.objects.get(pk=stderr.pk).text == "thinking\n"


def test_a_non_staff_user_sees_no_bots_admin(client):
    client.force_login(User.objects.create_user("visitor"))
    assert client.get(f"{ADMIN}bots/bot/").status_code == 302
