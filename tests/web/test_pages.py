"""The public pages through the Django test client: what each shows, and its failures."""

from __future__ import annotations

import re

import pytest
from django.db.models import Q

from bots.models import BotVersion
from games.rules import get_game
from matches.models import Match
from matches.selectors import match_event_count
from matches.services import match_claim, match_create, match_event_writer, match_seats_create
from tests.web.factories import bot_versions, match_play_here, play_out, tournament_started
from tournaments.models import DuplicateSet
from tournaments.standings_cache import tournament_version_forget

pytestmark = pytest.mark.django_db


@pytest.fixture
def round_robin():
    tournament = tournament_started(bot_versions(4), options={"target": 10}, name="Spring cup")
    play_out(tournament)
    return tournament


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def test_the_home_page_lists_the_games_and_running_and_finished_tournaments(client, round_robin):
    running = tournament_started(bot_versions(2, prefix="r"), options={"target": 10}, name="Live")
    page = text(client.get("/"))
    assert "Snag" in page and "Two-handed Spades" in page
    running_part, finished_part = page.split('id="recent"')
    assert "Live" in running_part and "Spring cup" not in running_part
    assert "Spring cup" in finished_part
    assert f'href="/tournaments/{running.pk}/"' in page


def test_the_home_page_lists_organised_tournaments_and_says_where_the_ladders_are(client, db):
    from ladder.services import ladder_for

    ladder = ladder_for(game_id="snag")
    cup = tournament_started(bot_versions(2), options={"target": 10}, name="Live cup")
    page = text(client.get("/"))
    running_part = page.split('id="running"')[1].split('id="recent"')[0]
    assert f'href="/tournaments/{cup.pk}/"' in running_part
    assert f'href="/tournaments/{ladder.pk}/"' not in page
    kinds_note = page.split('id="kinds"')[1].split("</p>")[0]
    assert kinds_note.startswith(">Organised tournaments only")
    assert 'href="/ladder/snag/"' in kinds_note and "?kind=ladder" in kinds_note
    assert 'href="/ladder/jam/">Ladder</a>' in page


def test_the_tournament_list_says_it_holds_organised_tournaments_only(client, db):
    page = text(client.get("/tournaments/"))
    assert 'id="kinds">Organised tournaments only' in page


def test_a_server_without_a_broker_says_on_its_pages_that_nothing_is_being_played(
    client, db, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # no CELERY_BROKER_URL: tasks run in-process
    for path in ("/", "/tournaments/", "/games/snag/"):
        page = text(client.get(path))
        assert "Nothing is being played on this server." in page, path
        assert "celery -A config worker -B" in page, path


def test_a_server_with_a_broker_shows_no_such_notice(client, db, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert 'id="no-broker"' not in text(client.get("/"))


def test_the_root_is_the_home_page_not_a_redirect(client, db):
    response = client.get("/")
    assert response.status_code == 200
    assert "<h1>" in response.content.decode()


def test_the_tournament_list_filters_by_game_and_status(client, round_robin):
    assert "Spring cup" in text(client.get("/tournaments/?game=snag&status=finished"))
    assert "Spring cup" not in text(client.get("/tournaments/?game=jam"))
    assert "Spring cup" not in text(client.get("/tournaments/?status=running"))


def test_a_round_robin_page_shows_standings_in_rank_order_with_the_cross_table(client, round_robin):
    page = text(client.get(f"/tournaments/{round_robin.pk}/"))
    rows = re.findall(r'<tr data-entrant="\d+"> <td class="num">(\d+)</td>', page)
    assert rows == ["1", "2", "3", "4"]
    assert 'id="cross-table"' in page
    assert "Round 3" in page
    for match_id in Match.objects.filter(tournament_match__tournament=round_robin).values_list(
        "id", flat=True
    ):
        assert f'href="/matches/{match_id}/"' in page


def test_the_standings_count_every_finished_set(client, round_robin):
    page = text(client.get(f"/tournaments/{round_robin.pk}/"))
    scores = re.findall(r'data-col="score"><strong>([\d½]+)</strong>', page)
    # Four entrants play six sets; each gives out one point (1 and 0, or ½ and ½).
    assert sum(float(score.replace("½", ".5")) for score in scores) == 6


def test_the_live_part_of_a_tournament_page_is_served_alone(client, round_robin):
    response = client.get(f"/tournaments/{round_robin.pk}/live/")
    assert response.status_code == 200
    assert 'id="standings"' in response.content.decode()
    assert "<html" not in response.content.decode()


def test_an_unchanged_tournament_answers_a_poll_with_304(client, round_robin):
    first = client.get(f"/tournaments/{round_robin.pk}/live/")
    again = client.get(f"/tournaments/{round_robin.pk}/live/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""


def test_a_finished_match_changes_the_tournament_page(client, settings):
    tournament = tournament_started(bot_versions(2), options={"target": 10})
    first = client.get(f"/tournaments/{tournament.pk}/live/")
    match_id = Match.objects.filter(tournament_match__tournament=tournament).first().pk
    match_play_here(match_id)
    tournament_version_forget(tournament_id=tournament.pk)  # as if a second went by
    again = client.get(f"/tournaments/{tournament.pk}/live/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again["ETag"] != first["ETag"]
    assert "1 of 2 matches played" in text(again)


def test_a_missing_tournament_bot_match_or_game_is_a_404(client, db):
    for url in ["/tournaments/999/", "/tournaments/999/live/", "/bots/999/", "/matches/999/"]:
        assert client.get(url).status_code == 404, url
    assert client.get("/games/bridge/").status_code == 404


def test_an_elimination_page_draws_the_bracket_with_the_champion(client):
    tournament = tournament_started(
        bot_versions(8), format="single_elimination", options={"target": 10}
    )
    play_out(tournament)
    page = text(client.get(f"/tournaments/{tournament.pk}/"))
    for title in ["Quarter-finals", "Semi-finals", "Final"]:
        assert f"<h3>{title}</h3>" in page
    assert len(re.findall(r'class="bracket-pairing played"', page)) == 7
    final = page[page.index('data-pairing="W3-1"') :]
    champion = re.search(r'class="side winner"> <span>([\w-]+)</span>', final).group(1)
    first_row = re.search(r'<tr data-entrant="\d+">.*?<a href="/bots/\d+/">([\w-]+)</a>', page)
    assert champion == first_row.group(1)


def test_the_game_page_ranks_rated_versions_by_conservative_rating(client, round_robin):
    page = text(client.get("/games/snag/"))
    ratings = [float(r) for r in re.findall(r'<td class="num"><strong>(-?[\d.]+)</strong>', page)]
    assert len(ratings) == 4
    assert ratings == sorted(ratings, reverse=True)
    assert "μ ± 3σ" in page


def test_a_game_without_ratings_says_so(client, db):
    assert "No rated bot yet" in text(client.get("/games/jam/"))


def test_the_bot_page_shows_versions_rating_history_and_recent_matches(client, round_robin):
    version = round_robin.entrants.first().version
    page = text(client.get(f"/bots/{version.bot_id}/"))
    assert "v1" in page and 'id="rating-chart"' in page
    assert len(re.findall(r"<polyline ", page)) == 2
    played = Match.objects.filter(seats__version=version).count()
    assert played == 6
    assert len(re.findall(r'<td><a href="/matches/\d+/">Match', page)) == played
    assert "Spring cup" in page


def test_an_unrated_bot_has_no_chart(client, db):
    [version] = bot_versions(1)
    page = text(client.get(f"/bots/{version.bot_id}/"))
    assert "No rated set yet" in page and "No match yet" in page


def test_the_bot_page_says_which_versions_play_series(client, db):
    [version] = bot_versions(1)
    BotVersion.objects.filter(pk=version.pk).update(plays_series=False)
    assert "plays series" not in text(client.get(f"/bots/{version.bot_id}/"))
    BotVersion.objects.filter(pk=version.pk).update(plays_series=True)
    assert "plays series" in text(client.get(f"/bots/{version.bot_id}/"))


def test_the_match_page_carries_the_chapters_and_the_replay_api_urls(client, round_robin):
    match = Match.objects.filter(tournament_match__tournament=round_robin).first()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'data-state-url="/api/matches/{match.pk}/state/"' in page
    assert f'data-events-url="/api/matches/{match.pk}/events/"' in page
    assert '<optgroup label="Deal 1">' in page and "Deal 1, trick 1" in page
    steps = match_event_count(match_id=match.pk, type="decision")
    assert f'max="{steps}"' in page


def test_a_rounds_match_page_lists_the_points_of_each_stage(client):
    versions = bot_versions(2, game_id="rounds", prefix="stages")
    match = match_create(game_id="rounds", seed=5, options={"target": 40})
    match_seats_create(match=match, versions=versions)
    match = match_play_here(match.pk)

    page = text(client.get(f"/matches/{match.pk}/"))

    table = re.search(r'<table class="score-parts" id="score-parts">(.*?)</table>', page).group(1)
    assert "<h2>Points by stage</h2>" in page
    rows = re.findall(r'<tr data-step="\d+" data-end="\d+">(.*?)</tr>', table)
    labels = [re.search(r">(Game \d+, stage \d)</a>", row).group(1) for row in rows]
    points = [
        [int(cell) for cell in re.findall(r'<td class="num">(\d+)</td>', row)] for row in rows
    ]
    assert labels[:2] == ["Game 1, stage 1", "Game 1, stage 2"] and len(rows) % 5 == 0
    assert [sum(row[seat] for row in points) for seat in (0, 1)] == match.scores


def test_a_snag_match_page_has_no_points_by_part(client, round_robin):
    match = Match.objects.filter(tournament_match__tournament=round_robin).first()
    assert 'id="score-parts"' not in client.get(f"/matches/{match.pk}/").content.decode()


# Forfeits ----------------------------------------------------------------------------------

TIMEOUT_DETAIL = (
    "the bot did not reply before the deadline: the decision limit of 1 s ran out,"
    " its time bank of 10 s already spent"
)


def forfeited_match(detail: str, *, reason: str = "timeout", seed: int = 11) -> Match:
    """A finished Snag match whose seat 1 forfeited at its first decision."""
    versions = bot_versions(2, prefix=f"f{seed}")
    match = match_create(game_id="snag", seed=seed, options={"target": 10})
    match_seats_create(match=match, versions=versions)
    match_claim(match_id=match.pk, worker="test")
    match.refresh_from_db()
    players = [
        {"seat": seat, "bot": str(v.bot), "version_id": v.pk, "content_hash": v.content_hash}
        for seat, v in enumerate(versions)
    ]
    order = get_game("snag").new_match(seed, {"target": 10}).orders[0]
    with match_event_writer(match=match, players=players) as writer:
        writer.emit("shuffle", {"k": 0, "order": list(order)})
        writer.emit("forfeit", {"seat": 1, "reason": reason, "detail": detail})
        writer.emit("match_finished", {"winner": 0, "scores": [0, 0], "reason": "forfeit"})
    match.refresh_from_db()
    return match


def forfeit_line(client, match: Match) -> str:
    found = re.search(r'<li id="forfeit">(.*?)</li>', text(client.get(f"/matches/{match.pk}/")))
    assert found, "the match page shows no forfeit"
    return found.group(1)


def test_the_match_page_says_which_seat_forfeited_and_the_public_reason(client):
    match = forfeited_match(TIMEOUT_DETAIL)

    line = forfeit_line(client, match)

    assert "seat 1 (f11-2): out of time" in line and "<code>timeout</code>" in line
    assert TIMEOUT_DETAIL in line


def test_the_match_page_never_shows_the_stderr_an_older_forfeit_detail_holds(client):
    legacy = "the bot closed its output (exit status 1); its stderr ends with:\nmy secret plan"
    match = forfeited_match(legacy, reason="crash")

    page = text(client.get(f"/matches/{match.pk}/"))

    assert "seat 1 (f11-2): crashed" in forfeit_line(client, match)
    assert "the bot closed its output (exit status 1)" in forfeit_line(client, match)
    assert "my secret plan" not in page


def test_while_its_deal_is_in_play_the_page_keeps_a_detail_naming_face_down_cards(client):
    hidden_card = get_game("snag").new_match(12, {"target": 10}).hands[1][0]
    detail = (
        f'{{"play":"1X"}} is not legal here; the legal actions were [{{"play":"{hidden_card}"}}]'
    )
    match = forfeited_match(detail, reason="illegal_action", seed=12)
    match_create(game_id="snag", seed=12, options={"target": 10})  # its twin, still to play

    line = forfeit_line(client, match)

    assert "seat 1 (f12-2): illegal action" in line and "face down" in line
    assert hidden_card not in line


def test_a_page_without_a_forfeit_shows_none(client, round_robin):
    match = Match.objects.filter(tournament_match__tournament=round_robin).first()
    assert 'id="forfeit"' not in text(client.get(f"/matches/{match.pk}/"))


def test_the_bot_page_says_who_forfeited_a_recent_match_and_why(client):
    match = forfeited_match(TIMEOUT_DETAIL)
    winner, loser = (seat.version.bot_id for seat in match.seats.order_by("seat"))

    assert "(forfeited: out of time)" in text(client.get(f"/bots/{loser}/"))
    assert "(opponent forfeited: out of time)" in text(client.get(f"/bots/{winner}/"))
    assert TIMEOUT_DETAIL not in text(client.get(f"/bots/{loser}/"))


def test_the_bot_page_shows_the_latest_version_s_head_to_head(client, round_robin):
    version = round_robin.entrants.first().version
    page = text(client.get(f"/bots/{version.bot_id}/"))
    table = page[page.index('id="head-to-head"') :]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr>\s*<td><a href=\"/bots/(\d+)/\">", table)
    opponents = {e.version.bot_id for e in round_robin.entrants.all() if e.version != version}
    assert {int(pk) for pk in rows} == opponents
    sets = DuplicateSet.objects.filter(
        Q(pairing__first__version=version) | Q(pairing__second__version=version),
        status="finished",
    )
    won = sum(
        (s.outcome == "first") == (s.pairing.first.version_id == version.pk)
        for s in sets.exclude(outcome="drawn").select_related("pairing__first")
    )
    shown = re.findall(r'<td class="num">(\d+)–(\d+)–(\d+)</td>', table)
    assert sum(int(w) for w, _, _ in shown) == won
    assert sum(int(w) + int(d) + int(lo) for w, d, lo in shown) == sets.count()
    assert "95% interval" in table and re.search(r'<a href="/matches/\d+/">\d+</a>', table)


def test_a_bot_without_a_ready_version_has_no_head_to_head(client, db):
    [version] = bot_versions(1)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PENDING)
    assert "No ready version yet" in text(client.get(f"/bots/{version.bot_id}/"))


def test_negative_points_are_written_with_a_minus_sign_never_as_a_dash_and_a_hyphen(
    client, round_robin
):
    DuplicateSet.objects.filter(pairing__tournament=round_robin).update(
        first_points=-958, second_points=639
    )
    match = Match.objects.filter(tournament_match__tournament=round_robin).first()
    Match.objects.filter(pk=match.pk).update(scores=[639, -958])
    version = match.seats.get(seat=0).version
    for path in (f"/bots/{version.bot_id}/", f"/matches/{match.pk}/"):
        page = text(client.get(path))
        assert "–-" not in page, path
        assert "–(\u2212958)" in page or "\u2212958–639" in page, path


@pytest.mark.parametrize(
    ("first", "second", "shown"),
    [(639, 958, "639–958"), (639, -958, "639–(−958)"), (-12, 40, "−12–40"), (0, 0, "0–0")],
)
def test_a_pair_of_scores_reads_for_then_against(first, second, shown):
    from web.templatetags.baize import against

    assert against(first, second) == shown


def test_the_bot_page_shows_the_head_to_head_of_any_version_asked_for(client, round_robin):
    v1 = round_robin.entrants.first().version
    BotVersion.objects.create(
        bot=v1.bot, number=2, content_hash="2" * 64, status=BotVersion.Status.READY
    )
    latest = text(client.get(f"/bots/{v1.bot_id}/"))
    asked = text(client.get(f"/bots/{v1.bot_id}/?version=1"))

    assert "Head to head of v2" in latest and "No finished set yet" in latest
    assert 'href="?version=1#head-to-head-title">v1</a>' in latest
    assert "Head to head of v1" in asked and "No finished set yet" not in asked
    assert '<strong aria-current="page">v1</strong>' in asked
    assert client.get(f"/bots/{v1.bot_id}/?version=9").status_code == 404
    assert client.get(f"/bots/{v1.bot_id}/?version=v1").status_code == 400
