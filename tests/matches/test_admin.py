"""The matches admin: a match's page counts its events and links to its log in the API."""

import pytest

from matches.services import match_create, match_events_append
from tests.games.snag_logs import play_snag

pytestmark = pytest.mark.django_db


def test_a_matchs_admin_page_counts_its_events_and_links_to_its_log(admin_client):
    match = match_create(game_id="snag", seed=3, options={"target": 10})
    match_events_append(match=match, events=play_snag(seed=3).events[:12])

    page = admin_client.get(f"/admin/matches/match/{match.pk}/change/")

    assert page.status_code == 200
    assert f'<a href="/api/matches/{match.pk}/events/">12 events</a>' in page.content.decode()


def test_match_events_have_no_admin_page_of_their_own(admin_client):
    assert admin_client.get("/admin/matches/matchevent/").status_code == 404
