"""The replay page's views for a signed-in author: their own seat while the deal is in play,
and a page saying why when a view is refused (``matches.visibility`` decides both)."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import User

from matches.models import Match
from tests.conftest import PASSWORD
from tests.ladder.conftest import bots_of
from tests.web.factories import match_play_here, pending_matches, tournament_started

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def refusal(response) -> str:
    assert response.status_code == 403
    found = re.search(r'<p id="refusal" class="refusal">(.*?)</p>', text(response))
    assert found, "the 403 page does not say why"
    return found.group(1)


@pytest.fixture
def deal_in_play(alice, bob):
    """A match of Alice's bot against Bob's, being played (its log written, its row said
    running, as the browser tests do), its twin still to play: its deal is in play.
    Returns the match and Alice's seat in it."""
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    tournament = tournament_started([mine, theirs], options={"target": 10})
    match = match_play_here(pending_matches(tournament)[0])
    assert pending_matches(tournament), "its twin is still to play"
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    seat = match.seats.get(version=mine).seat
    return match, seat


def viewer(response) -> dict:
    found = re.search(
        r'<script id="replay-match" type="application/json">(.*?)</script>', text(response)
    )
    return json.loads(found.group(1)) if found else {}


def test_a_signed_in_owner_follows_their_own_seat_while_the_deal_is_in_play(client, deal_in_play):
    match, seat = deal_in_play
    client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})

    public = client.get(f"/matches/{match.pk}/")
    own = client.get(f"/matches/{match.pk}/", {"view": f"seat{seat}"})

    assert f'<a href="?view=seat{seat}">seat{seat}</a>' in text(public)
    assert f'?view=seat{1 - seat}"' not in text(public)
    assert own.status_code == 200
    assert f"View <strong>seat{seat}</strong>" in text(own)
    assert f"you see what the bot in seat {seat} was sent" in text(own)
    assert viewer(own)["view"] == f"seat{seat}"
    state = client.get(f"/api/matches/{match.pk}/state/", {"view": f"seat{seat}", "step": 0})
    assert state.status_code == 200, "the replay's API calls go with the session too"
    assert list(state.json()["observations"]) == [str(seat)]
    assert len(state.json()["observations"][str(seat)]["hand"]) == 5


def test_a_visitor_asking_for_a_seat_s_view_is_told_to_sign_in(client, deal_in_play):
    match, seat = deal_in_play

    response = client.get(f"/matches/{match.pk}/", {"view": f"seat{seat}"})

    assert refusal(response).startswith(f"Sign in to see seat {seat}&#x27;s view")
    next_here = f"/accounts/login/?next=/matches/{match.pk}/%3Fview%3Dseat{seat}"
    assert f'<a href="{next_here}">Sign in</a>' in text(response)
    assert f'<a href="/matches/{match.pk}/">This page as everyone sees it</a>' in text(response)


def test_another_author_asking_for_a_seat_s_view_is_told_whose_seat_it_is(client, deal_in_play):
    match, seat = deal_in_play
    client.force_login(User.objects.get(username="bob"))

    response = client.get(f"/matches/{match.pk}/", {"view": f"seat{seat}"})

    assert refusal(response).startswith(f"Seat {seat} belongs to another author")
    assert "Sign in" not in text(response).split('id="refusal"')[1]


def test_the_full_log_of_a_deal_in_play_is_refused_saying_until_when(client, deal_in_play):
    match, _ = deal_in_play
    client.force_login(User.objects.get(username="alice"))

    response = client.get(f"/matches/{match.pk}/", {"view": "full"})

    assert "is shown once no match dealt its cards is in play" in refusal(response)
    assert "Sign in" not in text(response).split('id="refusal"')[1]


# What the owner of a seat's bot sees to debug it -----------------------------------------


@pytest.fixture
def cpp_match(alice):
    """A finished match of Alice's C++ bot, in seat 1, against the built-in heuristic."""
    from bots.models import Bot, BotVersion
    from bots.services.bots import builtin_bots_sync
    from matches.services import match_create, match_seats_create, seat_stderr_store

    bot = Bot.objects.create(owner=alice, game="snag", name="ada-cpp")
    mine = BotVersion.objects.create(
        bot=bot, number=2, content_hash="c" * 64, runtime="cpp", status="ready"
    )
    heuristic = builtin_bots_sync(game_id="snag")[1]
    match = match_create(game_id="snag", seed=8, options={"target": 10})
    match_seats_create(match=match, versions=[heuristic, mine])
    match = match_play_here(match.pk)
    seat_stderr_store(match=match, stderr=["", "my hand: 7S 9C\n"])
    return match


def test_the_owner_of_a_seat_s_bot_gets_its_log_stderr_code_and_replay_command(
    client, alice, cpp_match
):
    client.force_login(alice)
    page = text(client.get(f"/matches/{cpp_match.pk}/"))

    assert 'id="seat-0-tools"' not in page, "the built-in bot's seat is not hers"
    tools = page[page.index('id="seat-1-tools"') :]
    tools = tools[: tools.index("</section>")]
    log = f"/api/matches/{cpp_match.pk}/log/?view=seat1"
    assert f'<a href="{log}" download="match-{cpp_match.pk}-seat1.jsonl"' in tools
    assert 'download="snag-ada-cpp-v2.zip"' in tools
    assert "my hand: 7S 9C" in tools
    assert (
        "unzip -o -d snag-ada-cpp-v2 snag-ada-cpp-v2.zip\n.venv/bin/python manage.py play"
        f" --replay match-{cpp_match.pk}-seat1.jsonl --seat 1 snag-ada-cpp-v2 --runtime cpp"
    ) in client.get(f"/matches/{cpp_match.pk}/").content.decode()
    assert client.get(f"/matches/{cpp_match.pk}/")["Cache-Control"] == "private, no-store"
    # The link is to what the API gives her, and to nobody else.
    assert client.get(log).status_code == 200
    assert client.get(log.replace("seat1", "seat0")).status_code == 403


def test_nobody_else_sees_a_seat_s_tools_and_staff_see_every_seat(client, bob, cpp_match):
    assert "-tools" not in text(client.get(f"/matches/{cpp_match.pk}/"))
    client.force_login(bob)
    assert "-tools" not in text(client.get(f"/matches/{cpp_match.pk}/"))

    staff = User.objects.create_user("staff", password=PASSWORD, is_staff=True)
    client.force_login(staff)
    page = client.get(f"/matches/{cpp_match.pk}/").content.decode()
    assert 'id="seat-0-tools"' in page and 'id="seat-1-tools"' in page
    assert (
        f"manage.py play --replay match-{cpp_match.pk}-seat0.jsonl --seat 0 snag_heuristic</pre>"
        in page
    )
