"""Signing in, out and up on the pages, with the accounts the API uses: sessions, CSRF, the
API's rate limits, and a header that names the author on every page (cached ones included)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.throttling import ScopedRateThrottle

from tests.conftest import PASSWORD
from tests.web.factories import bot_versions, play_out, tournament_started

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def header(response) -> str:
    found = re.search(r'<span class="account" id="account">(.*?)</span>\s*</nav>', text(response))
    assert found, "the page has no account part in its header"
    return found.group(1)


def sign_in(client: Client, username: str, password: str = PASSWORD, **fields):
    form = {"username": username, "password": password, **fields}
    return client.post("/accounts/login/", form)


@pytest.fixture
def limited(monkeypatch):
    """Sets a scope's limit, as BAIZE_*_RATE would."""

    def limit(scope: str, rate: str) -> None:
        rates = {**ScopedRateThrottle.THROTTLE_RATES, scope: rate}
        monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)

    return limit


def test_the_sign_in_page_is_at_accounts_login_with_a_csrf_protected_form(client):
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in text(page)
    assert 'name="username"' in text(page) and 'name="password"' in text(page)


def test_a_visitor_s_header_offers_to_sign_in_and_come_back(client):
    assert header(client.get("/games/snag/")) == (
        '<a href="/accounts/login/?next=/games/snag/">sign in</a>'
    )


def test_an_author_signs_in_with_the_api_account_and_every_page_names_them(client, alice):
    response = sign_in(client, "alice")

    assert response.status_code == 302 and response["Location"] == "/my/bots/"
    shown = header(client.get("/"))
    assert '<span id="signed-in-as">alice</span>' in shown
    assert '<a href="/my/bots/">my bots</a>' in shown
    assert 'action="/accounts/logout/"' in shown and "sign out" in shown


def test_signing_in_brings_the_author_back_where_they_were(client, alice):
    page = client.get("/accounts/login/?next=/games/snag/")
    assert 'name="next" value="/games/snag/"' in text(page)

    assert sign_in(client, "alice", next="/games/snag/")["Location"] == "/games/snag/"


def test_a_wrong_password_is_refused_on_the_page_and_signs_nobody_in(client, alice):
    response = sign_in(client, "alice", "not the password")

    assert response.status_code == 200
    assert "Please enter a correct username and password" in text(response)
    assert "sign in" in header(client.get("/"))


def test_signing_out_is_a_post(client, alice):
    sign_in(client, "alice")
    assert client.get("/accounts/logout/").status_code == 405
    assert "alice" in header(client.get("/"))

    response = client.post("/accounts/logout/")

    assert response.status_code == 302 and response["Location"] == "/"
    assert "sign in" in header(client.get("/"))


def test_the_sign_in_form_without_its_csrf_token_is_a_page_saying_why(alice):
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")  # the CSRF cookie, but not the form's token

    response = sign_in(client, "alice")

    assert response.status_code == 403
    assert "without its security token (CSRF)" in text(response)
    assert "sign in" in header(client.get("/"))


def test_another_site_cannot_sign_an_author_out(alice):
    client = Client(enforce_csrf_checks=True)
    form = client.get("/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text(form)).group(1)
    assert sign_in(client, "alice", csrfmiddlewaretoken=token).status_code == 302

    assert client.post("/accounts/logout/").status_code == 403
    assert "alice" in header(client.get("/"))


def test_signing_up_on_the_page_makes_an_account_the_api_knows(client):
    response = client.post(
        "/accounts/sign-up/",
        {"username": "carol", "password": PASSWORD, "password_again": PASSWORD, "email": ""},
    )

    assert response.status_code == 302 and response["Location"] == "/my/bots/"
    assert "carol" in header(client.get("/"))
    carol = User.objects.get(username="carol")
    assert Token.objects.filter(user=carol).exists()
    api = Client().post("/api/accounts/token/", {"username": "carol", "password": PASSWORD})
    assert api.status_code == 200 and api.json()["token"] == carol.auth_token.key


@pytest.mark.parametrize(
    "form, field, words",
    [
        ({"username": "ALICE"}, "username", "this username is taken"),
        ({"username": "a b"}, "username", "This value does not match the required pattern"),
        ({"password": "123", "password_again": "123"}, "password", "too short"),
        ({"password_again": "something else"}, "password_again", "the two passwords differ"),
    ],
    ids=["taken", "letters", "weak", "differ"],
)
def test_a_refused_sign_up_says_why_beside_the_field(client, alice, form, field, words):
    given = {"username": "dave", "password": PASSWORD, "password_again": PASSWORD, **form}

    response = client.post("/accounts/sign-up/", given)

    assert response.status_code == 200
    after_label = text(response).split(f'<label for="id_{field}">', 1)[1].split("</p>", 1)[0]
    assert words in after_label
    assert User.objects.count() == 1


def described_by_missing(response) -> list[str]:
    """The ids a field's ``aria-describedby`` names that are no element's id on the page."""
    page = response.content.decode()
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    named = [n for value in re.findall(r'aria-describedby="([^"]*)"', page) for n in value.split()]
    return [name for name in named if name not in ids]


def test_every_field_s_description_is_on_the_page_with_or_without_errors(client, alice):
    blank = client.get("/accounts/sign-up/")
    assert 'aria-describedby="id_username_helptext"' in blank.content.decode()
    refused = client.post("/accounts/sign-up/", {"username": "a b", "password_again": "x"})
    assert 'aria-invalid="true"' in refused.content.decode()
    for response in (blank, refused, client.get("/accounts/login/")):
        assert described_by_missing(response) == []


def test_sign_ins_on_the_page_count_against_the_api_s_token_limit(client, alice, limited):
    limited("token", "2/hour")
    assert sign_in(client, "alice", "wrong").status_code == 200
    api = Client().post("/api/accounts/token/", {"username": "alice", "password": "wrong"})
    assert api.status_code == 401, "the page and the API count in one place"

    refused = sign_in(client, "alice")

    assert refused.status_code == 429
    assert "Too many sign-ins from here: try again in" in text(refused)
    assert "sign in" in header(client.get("/"))


def test_sign_ups_on_the_page_count_against_the_api_s_sign_up_limit(client, limited):
    limited("sign_up", "1/hour")
    form = {"username": "erin", "password": PASSWORD, "password_again": PASSWORD}
    assert client.post("/accounts/sign-up/", form).status_code == 302
    client.post("/accounts/logout/")

    refused = client.post("/accounts/sign-up/", {**form, "username": "frank"})

    assert refused.status_code == 429 and "Too many sign-ups from here" in text(refused)
    assert not User.objects.filter(username="frank").exists()


def test_a_cached_tournament_page_names_only_the_author_who_asks(client, alice):
    tournament = tournament_started(bot_versions(2), options={"target": 10})
    play_out(tournament)
    path = f"/tournaments/{tournament.pk}/"
    anonymous = client.get(path)
    sign_in(client, "alice")

    mine = client.get(path, HTTP_IF_NONE_MATCH=anonymous["ETag"])

    assert mine.status_code == 200 and "ETag" not in mine
    assert '<span id="signed-in-as">alice</span>' in header(mine)
    stranger = Client().get(path)
    assert "alice" not in text(stranger) and "csrfmiddlewaretoken" not in text(stranger)
    assert stranger["ETag"] == anonymous["ETag"]
