"""The tournament page: cached once per version for every anonymous viewer, and framed per
request (the header naming who is signed in, the messages) for anyone else."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.conftest import PASSWORD
from tests.web.factories import bot_versions, tournament_started
from web import live

pytestmark = pytest.mark.django_db


@pytest.fixture
def tournament():
    return tournament_started(bot_versions(2))


def test_an_anonymous_viewers_page_is_served_without_a_query_once_kept(
    tournament, django_assert_num_queries
):
    url = f"/tournaments/{tournament.pk}/"
    first = Client().get(url)
    assert first.status_code == 200 and "sign in" in first.content.decode()
    with django_assert_num_queries(0):  # the version is in the cache, the page in the process
        again = Client().get(url)
    assert again.content == first.content
    assert f'?next={url}"' in again.content.decode()


def test_a_signed_in_viewer_gets_their_own_frame_around_the_same_page(tournament):
    User.objects.create_user("alice", password=PASSWORD)
    url = f"/tournaments/{tournament.pk}/"
    anonymous = Client().get(url).content.decode()
    alice = Client()
    alice.login(username="alice", password=PASSWORD)
    hers = alice.get(url)
    shown = hers.content.decode()
    assert '<span id="signed-in-as">alice</span>' in shown and "csrfmiddlewaretoken" in shown
    assert "ETag" not in hers and hers["Cache-Control"] == "private, no-cache"
    assert "Cookie" in hers["Vary"]
    assert "alice" not in Client().get(url).content.decode()
    main = anonymous[anonymous.index('<main id="main">') :]
    assert main in shown  # the page itself is the one everyone gets


def test_a_query_string_gets_a_sign_in_link_back_to_it(tournament):
    url = f"/tournaments/{tournament.pk}/?from=home"
    assert "?next=/tournaments/" in Client().get(url).content.decode()
    assert "%3Ffrom%3Dhome" in Client().get(url).content.decode()


def _signed_in(username: str = "alice") -> Client:
    """A browser signed in through the sign-in form, with the CSRF cookie that leaves."""
    User.objects.create_user(username, password=PASSWORD)
    client = Client(enforce_csrf_checks=True)
    form = client.get("/accounts/login/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    fields = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}
    assert client.post("/accounts/login/", fields).status_code == 302
    return client


def test_a_signed_in_viewers_page_again_reads_nothing_but_the_version(
    tournament, django_assert_num_queries
):
    alice = _signed_in()
    url = f"/tournaments/{tournament.pk}/"
    first = alice.get(url).content.decode()
    with django_assert_num_queries(0):  # the version is in the cache, the header in the process
        again = alice.get(url).content.decode()
    assert again == first and '<span id="signed-in-as">alice</span>' in again


def test_the_kept_headers_csrf_token_signs_the_viewer_out_and_that_shows_at_once(tournament):
    alice = _signed_in()
    url = f"/tournaments/{tournament.pk}/"
    alice.get(url)
    kept = alice.get(url).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', kept).group(1)
    assert alice.post("/accounts/logout/", {"csrfmiddlewaretoken": token}).status_code == 302
    after = alice.get(url).content.decode()
    assert "signed-in-as" not in after and "sign in" in after


def test_a_password_changed_elsewhere_shows_on_the_page_within_the_viewer_seconds(
    tournament, monkeypatch
):
    alice = _signed_in()
    url = f"/tournaments/{tournament.pk}/"
    assert "signed-in-as" in alice.get(url).content.decode()
    user = User.objects.get(username="alice")
    user.set_password("another long passphrase")
    user.save()
    assert "signed-in-as" in alice.get(url).content.decode()  # kept since the last check
    later = time.monotonic() + live.VIEWER_SECONDS + 1
    monkeypatch.setattr(live.time, "monotonic", lambda: later)
    assert "signed-in-as" not in alice.get(url).content.decode()
    assert "signed-in-as" not in alice.get("/").content.decode()  # signed out everywhere


def test_each_viewer_gets_their_own_header(tournament):
    alice, bob = _signed_in("alice"), _signed_in("bob")
    url = f"/tournaments/{tournament.pk}/"
    for _ in range(2):
        assert '<span id="signed-in-as">alice</span>' in alice.get(url).content.decode()
        assert '<span id="signed-in-as">bob</span>' in bob.get(url).content.decode()


def test_a_message_waiting_is_shown_once_on_a_signed_in_viewers_page(tournament):
    newcomer = Client()
    signed_up = newcomer.post(
        "/accounts/sign-up/",
        {"username": "carol", "password": PASSWORD, "password_again": PASSWORD},
    )
    assert signed_up.status_code == 302  # not followed: the welcome is still waiting
    url = f"/tournaments/{tournament.pk}/"
    shown = newcomer.get(url).content.decode()
    assert "Welcome, carol" in shown and '<span id="signed-in-as">carol</span>' in shown
    again = newcomer.get(url).content.decode()
    assert "Welcome, carol" not in again and "signed-in-as" in again
