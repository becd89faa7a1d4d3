"""The admin panel: tournaments with their table inline, actions that ask why, ratings."""

from __future__ import annotations

import re

import pytest

from tournaments.models import ManualChange, Tournament
from tournaments.ratings.models import Leaderboard

from .conftest import play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/tournaments/tournament/"


def act(client, url, action, ids, **fields):
    """Run an admin action: the first post shows the reason form, the second applies it."""
    data = {"action": action, "_selected_action": [str(pk) for pk in ids]}
    first = client.post(url, data)
    assert first.status_code == 200 and b"recorded with who made it and why" in first.content
    return client.post(url, {**data, "apply": "yes", **fields}, follow=True)


def test_the_tournament_page_shows_entrants_and_the_round_table(admin_client):
    tournament = play_all(start(tournament_with(strategy_bots(3))))
    page = admin_client.get(f"{CHANGELIST}{tournament.pk}/change/")
    assert page.status_code == 200
    assert b"r1t1" in page.content and tournament.secret.encode() in page.content
    assert admin_client.get(CHANGELIST).status_code == 200


def test_the_seed_stays_hidden_in_the_admin_until_the_end(admin_client):
    tournament = tournament_with(strategy_bots(2))
    page = admin_client.get(f"{CHANGELIST}{tournament.pk}/change/")
    assert tournament.secret.encode() not in page.content
    assert b"secret until the tournament ends" in page.content


def test_an_organiser_adds_a_tournament_through_the_admin_form(admin_client, admin_user):
    response = admin_client.post(
        f"{CHANGELIST}add/",
        {
            "name": "Admin cup",
            "game": "snag",
            "format": "single_elimination",
            "options": '{"target": 15}',
            "sets_per_pair": "2",
            "decision_timeout": "0.5",
            "entrants-TOTAL_FORMS": "0",
            "entrants-INITIAL_FORMS": "0",
            "pairings-TOTAL_FORMS": "0",
            "pairings-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    tournament = Tournament.objects.get(name="Admin cup")
    assert tournament.organiser == admin_user and len(tournament.secret_sha256) == 64
    assert tournament.options == {"target": 15} and tournament.status == "draft"


def test_schedule_start_now_and_cancel_ask_why_and_are_recorded(admin_client, admin_user):
    tournament = tournament_with(strategy_bots(2))
    act(
        admin_client,
        CHANGELIST,
        "schedule",
        [tournament.pk],
        reason="Friday night",
        starts_at="2031-01-01 20:00:00",
    )
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"
    act(admin_client, CHANGELIST, "start_now", [tournament.pk], reason="everyone is here")
    tournament.refresh_from_db()
    assert tournament.status == "running"
    act(admin_client, CHANGELIST, "cancel", [tournament.pk], reason="server move")
    tournament.refresh_from_db()
    assert tournament.status == "cancelled"
    changes = list(ManualChange.objects.order_by("id").values_list("action", "reason", "user"))
    assert changes == [
        ("schedule", "Friday night", admin_user.pk),
        ("start", "everyone is here", admin_user.pk),
        ("cancel", "server move", admin_user.pk),
    ]


def test_an_action_without_a_reason_changes_nothing(admin_client):
    tournament = tournament_with(strategy_bots(2))
    page = act(admin_client, CHANGELIST, "cancel", [tournament.pk], reason="")
    assert b"This field is required" in page.content
    tournament.refresh_from_db()
    assert tournament.status == "draft" and not ManualChange.objects.exists()


def test_ratings_are_recomputed_and_reset_from_the_admin(admin_client):
    play_all(start(tournament_with(strategy_bots(2))))
    leaderboard = Leaderboard.objects.get(game="snag")
    url = "/admin/tournaments/leaderboard/"
    page = act(admin_client, url, "recompute", [leaderboard.pk], reason="monthly check")
    assert b"identical to the stored ratings, bit for bit" in page.content
    page = act(admin_client, url, "reset", [leaderboard.pk], reason="new season")
    assert b"2 rating(s) reset" in page.content
    assert [c.action for c in ManualChange.objects.order_by("id")] == [
        "ratings_recompute",
        "ratings_reset",
    ]
    assert admin_client.get(f"{url}{leaderboard.pk}/change/").status_code == 200


def test_history_pages_are_read_only(admin_client):
    play_all(start(tournament_with(strategy_bots(2))))
    assert admin_client.get("/admin/tournaments/rating/add/").status_code == 403
    assert admin_client.get("/admin/tournaments/manualchange/add/").status_code == 403
    assert admin_client.get("/admin/tournaments/tournamentmatch/add/").status_code == 403
    assert admin_client.get("/admin/tournaments/rating/").status_code == 200
    assert admin_client.get("/admin/tournaments/tournamentmatch/").status_code == 200


def test_bots_are_entered_from_the_tournament_page_through_the_entry_rules(admin_client):
    tournament = tournament_with(strategy_bots(1))
    newcomer, other_game = strategy_bots(1)[0], strategy_bots(1, game="jam")[0]
    form = {
        "name": tournament.name,
        "game": "snag",
        "format": "round_robin",
        "options": '{"target": 10}',
        "sets_per_pair": "1",
        "decision_timeout": "1.0",
        "entrants-TOTAL_FORMS": "2",
        "entrants-INITIAL_FORMS": "1",
        "entrants-0-id": str(tournament.entrants.get().pk),
        "entrants-0-tournament": str(tournament.pk),
        "entrants-1-tournament": str(tournament.pk),
        "pairings-TOTAL_FORMS": "0",
        "pairings-INITIAL_FORMS": "0",
    }
    url = f"{CHANGELIST}{tournament.pk}/change/"
    refused = admin_client.post(url, {**form, "entrants-1-version": str(other_game.pk)})
    assert refused.status_code == 200 and b"plays jam" in refused.content
    accepted = admin_client.post(url, {**form, "entrants-1-version": str(newcomer.pk)})
    assert accepted.status_code == 302
    entrants = list(tournament.entrants.values_list("version_id", "position"))
    assert entrants[1] == (newcomer.pk, 2)


def test_the_admin_index_says_matches_and_never_matchs(admin_client):
    page = admin_client.get("/admin/").content.decode()
    assert '<a href="/admin/matches/match/">Matches</a>' in page
    assert '<a href="/admin/tournaments/tournamentmatch/">Tournament matches</a>' in page
    assert not re.search(r"\bmatchs\b", page, re.IGNORECASE)


def test_an_organiser_picks_the_swiss_pairing_system_in_the_admin(admin_client):
    form = {
        "name": "Monrad night",
        "game": "snag",
        "format": "swiss",
        "pairing_system": "monrad",
        "options": "{}",
        "sets_per_pair": "1",
        "decision_timeout": "1.0",
        "entrants-TOTAL_FORMS": "0",
        "entrants-INITIAL_FORMS": "0",
        "pairings-TOTAL_FORMS": "0",
        "pairings-INITIAL_FORMS": "0",
    }
    assert admin_client.post(f"{CHANGELIST}add/", form).status_code == 302
    assert Tournament.objects.get(name="Monrad night").pairing_system == "monrad"
    page = admin_client.get(f"{CHANGELIST}?pairing_system__exact=monrad").content
    assert b"Monrad night" in page


def test_a_configuration_bound_changed_in_one_place_holds_in_the_check_the_api_and_the_admin(
    admin_client, monkeypatch
):
    from tournaments import config

    monkeypatch.setitem(config.BOUNDS, "sets_per_pair", config.Bound(1, 5))
    six = {"name": "Six", "game": "snag", "format": "round_robin", "sets_per_pair": 6}

    with pytest.raises(config.TournamentError) as checked:
        config.TournamentConfig(**six).check()
    api = admin_client.post("/api/tournaments/", six, content_type="application/json")
    admin = admin_client.post(
        f"{CHANGELIST}add/",
        {
            **six,
            "options": "{}",
            "decision_timeout": "1.0",
            "entrants-TOTAL_FORMS": "0",
            "entrants-INITIAL_FORMS": "0",
            "pairings-TOTAL_FORMS": "0",
            "pairings-INITIAL_FORMS": "0",
        },
    )

    said = "sets_per_pair must be from 1 to 5"
    assert checked.value.field == "sets_per_pair" and str(checked.value) == said
    assert api.status_code == 400 and api.json()["detail"] == {"sets_per_pair": said}
    assert admin.status_code == 200 and said in admin.content.decode()
    assert not Tournament.objects.exists()
