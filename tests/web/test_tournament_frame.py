"""The tournament page: cached once per version for every anonymous viewer, and framed per
request (the header naming who is signed in, the messages) for anyone else."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.conftest import PASSWORD
from tests.web.factories import bot_versions, tournament_started

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
    assert "ETag" not in hers
    assert "alice" not in Client().get(url).content.decode()
    main = anonymous[anonymous.index('<main id="main">') :]
    assert main in shown  # the page itself is the one everyone gets


def test_a_query_string_gets_a_sign_in_link_back_to_it(tournament):
    url = f"/tournaments/{tournament.pk}/?from=home"
    assert "?next=/tournaments/" in Client().get(url).content.decode()
    assert "%3Ffrom%3Dhome" in Client().get(url).content.decode()
