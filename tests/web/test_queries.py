"""Every page runs a fixed handful of queries, however much data there is behind it."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import BotVersion
from matches.models import Match
from tests.web.factories import bot_versions, play_out, tournament_started
from tournaments.standings_cache import tournament_version_forget

pytestmark = pytest.mark.django_db

#: The most any page may run, whatever the size of what it shows: an elimination page,
#: which reads the standings and the bracket through the tournaments app's selectors.
HANDFUL = 13


def queries_for(client, url: str) -> int:
    cache.clear()
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def grow(entrants: int, format: str = "round_robin", prefix: str = "bot"):
    tournament = tournament_started(
        bot_versions(entrants, prefix=prefix), format=format, options={"target": 10}
    )
    play_out(tournament)
    return tournament


def counts(client, urls_at_each_size) -> list[int]:
    return [queries_for(client, url) for url in urls_at_each_size]


def assert_a_fixed_handful(counts: list[int]) -> None:
    assert max(counts) <= HANDFUL, counts
    assert len(set(counts)) == 1, f"the count grows with the data: {counts}"


@pytest.mark.parametrize("format", ["round_robin", "swiss", "single_elimination"])
def test_a_tournament_page(client, django_assert_max_num_queries, format):
    small, large = grow(4, format, "s"), grow(8, format, "l")
    urls = [f"/tournaments/{small.pk}/", f"/tournaments/{large.pk}/"]
    assert_a_fixed_handful(counts(client, urls))
    with django_assert_max_num_queries(HANDFUL):
        client.get(f"/tournaments/{large.pk}/live/")


def test_a_cached_tournament_page_costs_at_most_one_query(client, django_assert_max_num_queries):
    tournament = grow(4)
    client.get(f"/tournaments/{tournament.pk}/")
    tournament_version_forget(tournament_id=tournament.pk)
    with django_assert_max_num_queries(1):
        client.get(f"/tournaments/{tournament.pk}/")
    with django_assert_max_num_queries(0):
        client.get(f"/tournaments/{tournament.pk}/")


def test_the_home_page_and_the_tournament_list(client):
    home, listing = [], []
    for size in (1, 4):
        for number in range(size):
            grow(2, prefix=f"h{size}-{number}")
        home.append(queries_for(client, "/"))
        listing.append(queries_for(client, "/tournaments/?game=snag"))
    assert_a_fixed_handful(home)
    assert_a_fixed_handful(listing)


def test_the_game_page(client):
    found = []
    for entrants in (2, 6):
        grow(entrants, prefix=f"g{entrants}")
        found.append(queries_for(client, "/games/snag/"))
    assert_a_fixed_handful(found)


def test_the_bot_page(client):
    found = []
    for entrants in (2, 6):
        tournament = grow(entrants, prefix=f"b{entrants}")
        version = tournament.entrants.first().version
        BotVersion.objects.create(bot=version.bot, number=2, content_hash="f" * 64)
        found.append(queries_for(client, f"/bots/{version.bot_id}/"))
    assert_a_fixed_handful(found)


def test_the_match_page(client):
    found = []
    for target in (10, 60):
        tournament = tournament_started(
            bot_versions(2, prefix=f"m{target}"), options={"target": target}
        )
        play_out(tournament)
        match = Match.objects.filter(tournament_match__tournament=tournament).first()
        found.append(queries_for(client, f"/matches/{match.pk}/"))
    assert_a_fixed_handful(found)


def test_an_author_s_own_page(client, alice):
    """The same count whatever the bots and versions; the ratings and the ladder are read
    through their apps' selectors, which take one game each: two reads a game at most; and
    one read of the author's API token."""
    from games.rules import GAMES
    from tests.ladder.conftest import bots_of

    client.force_login(alice)
    found = []
    for count in (1, 3):
        for game in GAMES:
            for version in bots_of(alice, count, game=game):
                BotVersion.objects.create(
                    bot=version.bot, number=2, content_hash=f"{version.pk:064x}"
                )
        found.append(queries_for(client, "/my/bots/"))
    assert len(set(found)) == 1, f"the count grows with the data: {found}"
    assert max(found) <= 6 + 2 * len(GAMES), found
