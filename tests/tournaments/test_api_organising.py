"""Organising over the API: create (organisers only), enter bots, schedule, cancel."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from rest_framework.test import APIClient

from bots.models import BotVersion
from tournaments.models import Entrant, Tournament

from .conftest import strategy_bots

pytestmark = pytest.mark.django_db

NEW = {"name": "Friday Swiss", "game": "snag", "format": "swiss", "options": {"target": 20}}


@pytest.fixture
def organiser(db):
    user = User.objects.create_user("organiser")
    user.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    return user


def client(user=None):
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


def test_an_organiser_creates_a_draft_whose_seed_stays_secret(organiser):
    response = client(organiser).post("/api/tournaments/", NEW, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "draft" and body["format"] == "swiss"
    assert body["secret"] is None and len(body["secret_sha256"]) == 64
    tournament = Tournament.objects.get(pk=body["id"])
    assert tournament.organiser == organiser and tournament.options == {"target": 20}


def test_a_start_time_in_the_request_schedules_the_tournament(organiser):
    given = {**NEW, "starts_at": "2031-01-02T03:04:05Z"}
    body = client(organiser).post("/api/tournaments/", given, format="json").json()
    assert body["status"] == "scheduled" and body["starts_at"] == "2031-01-02T03:04:05Z"


@pytest.mark.parametrize("user", [None, "someone"])
def test_only_organisers_create_tournaments(db, user):
    who = User.objects.create_user(user) if user else None
    response = client(who).post("/api/tournaments/", NEW, format="json")
    assert response.status_code in (401, 403)
    assert response.json()["error"] in ("not_authenticated", "permission_denied")
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"game": "bridge"}, "game"),
        ({"options": {"target": -1}}, "options"),
        ({"sets_per_pair": 0}, "sets_per_pair"),
        ({"format": "ladder"}, "format"),
    ],
)
def test_bad_tournament_settings_are_a_400_naming_what_is_wrong(organiser, change, field):
    response = client(organiser).post("/api/tournaments/", {**NEW, **change}, format="json")
    assert response.status_code == 400
    assert field in response.json()["detail"]
    assert not Tournament.objects.exists()


def test_a_bot_owner_enters_their_own_bot_and_not_someone_elses(organiser):
    owner = User.objects.create_user("owner")
    (mine,) = strategy_bots(1, owner=owner)
    (theirs,) = strategy_bots(1, owner=User.objects.create_user("other"))
    tournament_id = client(organiser).post("/api/tournaments/", NEW, format="json").json()["id"]
    url = f"/api/tournaments/{tournament_id}/entrants/"
    response = client(owner).post(url, {"version": mine.pk}, format="json")
    assert response.status_code == 201
    assert response.json()["version_id"] == mine.pk and response.json()["position"] == 1
    assert client(owner).post(url, {"version": theirs.pk}, format="json").status_code == 403
    assert client().post(url, {"version": mine.pk}, format="json").status_code in (401, 403)
    again = client(owner).post(url, {"version": mine.pk}, format="json")
    assert again.status_code == 409 and "already entered" in again.json()["detail"]["version"]
    assert Entrant.objects.count() == 1


def test_organisers_enter_built_in_bots_and_the_entrants_are_listed(
    organiser, builtin_snag_versions
):
    tournament_id = client(organiser).post("/api/tournaments/", NEW, format="json").json()["id"]
    url = f"/api/tournaments/{tournament_id}/entrants/"
    for version in builtin_snag_versions:
        assert (
            client(organiser).post(url, {"version": version.pk}, format="json").status_code == 201
        )
    listed = client().get(url).json()
    assert listed["count"] == 2
    assert [e["bot"] for e in listed["results"]] == ["random", "heuristic"]


def test_an_organiser_schedules_and_cancels_with_a_reason(organiser):
    tournament_id = client(organiser).post("/api/tournaments/", NEW, format="json").json()["id"]
    base = f"/api/tournaments/{tournament_id}"
    scheduled = client(organiser).post(
        f"{base}/schedule/", {"starts_at": "2031-01-01T00:00:00Z"}, format="json"
    )
    assert scheduled.status_code == 200 and scheduled.json()["status"] == "scheduled"
    assert client().post(f"{base}/cancel/", {"reason": "x"}, format="json").status_code in (
        401,
        403,
    )
    cancelled = client(organiser).post(f"{base}/cancel/", {"reason": "no bots"}, format="json")
    assert (
        cancelled.json()["status"] == "cancelled" and cancelled.json()["status_reason"] == "no bots"
    )
    again = client(organiser).post(f"{base}/cancel/", {"reason": "again"}, format="json")
    assert again.status_code == 409
    assert (
        client(organiser)
        .post(f"{base}/schedule/", {"starts_at": "2031-01-01T00:00:00Z"}, format="json")
        .status_code
        == 409
    )


def test_swiss_rounds_are_paired_by_the_dutch_system_unless_monrad_is_chosen(organiser):
    dutch = client(organiser).post("/api/tournaments/", NEW, format="json").json()
    assert dutch["pairing_system"] == "dutch"
    given = {**NEW, "pairing_system": "monrad"}
    monrad = client(organiser).post("/api/tournaments/", given, format="json").json()
    assert monrad["pairing_system"] == "monrad"
    assert Tournament.objects.get(pk=monrad["id"]).pairing_system == "monrad"
    detail = client().get(f"/api/tournaments/{monrad['id']}/").json()
    assert detail["pairing_system"] == "monrad"


def test_an_unknown_pairing_system_is_a_400_naming_it(organiser):
    given = {**NEW, "pairing_system": "burstein"}
    response = client(organiser).post("/api/tournaments/", given, format="json")
    assert response.status_code == 400 and "pairing_system" in response.json()["detail"]
    assert not Tournament.objects.exists()


def test_an_author_enters_a_bot_by_the_version_number_they_see(organiser):
    owner = User.objects.create_user("owner")
    (first,) = strategy_bots(1, owner=owner)
    second = BotVersion.objects.create(
        bot=first.bot, number=2, builtin="random", content_hash="second", status="ready"
    )
    tournament_id = client(organiser).post("/api/tournaments/", NEW, format="json").json()["id"]
    url = f"/api/tournaments/{tournament_id}/entrants/"
    response = client(owner).post(url, {"bot": first.bot_id, "version": 2}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["version_id"] == second.pk and response.json()["version"] == 2


@pytest.mark.parametrize(
    ("entry", "field", "says"),
    [
        ({"bot": 424242, "version": 1}, "bot", "there is no bot 424242"),
        ({"bot": "mine", "version": 7}, "version", "has no version 7"),
        ({"bot": "mine", "version": 2}, "version", "not ready"),
        ({"bot": "theirs", "version": 1}, "bot", "is not yours"),
    ],
)
def test_entering_by_bot_and_number_is_a_400_naming_what_is_wrong(organiser, entry, field, says):
    owner = User.objects.create_user("owner")
    (mine,) = strategy_bots(1, owner=owner)
    BotVersion.objects.create(bot=mine.bot, number=2, builtin="random", content_hash="pending")
    (theirs,) = strategy_bots(1, owner=User.objects.create_user("other"))
    bots = {"mine": mine.bot_id, "theirs": theirs.bot_id}
    entry = {**entry, "bot": bots.get(entry["bot"], entry["bot"])}
    tournament_id = client(organiser).post("/api/tournaments/", NEW, format="json").json()["id"]
    url = f"/api/tournaments/{tournament_id}/entrants/"
    response = client(owner).post(url, entry, format="json")
    assert response.status_code == 400
    assert says in response.json()["detail"][field]
    assert not Entrant.objects.exists()


def test_an_organiser_enters_any_bot_by_its_number(organiser):
    (theirs,) = strategy_bots(1, owner=User.objects.create_user("other"))
    tournament_id = client(organiser).post("/api/tournaments/", NEW, format="json").json()["id"]
    url = f"/api/tournaments/{tournament_id}/entrants/"
    entry = {"bot": theirs.bot_id, "version": 1}
    assert client(organiser).post(url, entry, format="json").status_code == 201


def test_a_tournament_naming_an_unknown_field_is_refused_by_name_and_creates_nothing(organiser):
    response = client(organiser).post(
        "/api/tournaments/", {**NEW, "sets": 3, "seed": 4}, format="json"
    )

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid" and set(body["detail"]) == {"sets", "seed"}
    assert body["detail"]["sets"][0].startswith("unknown field: a tournament takes only name")
    assert not Tournament.objects.exists()


def test_entering_scheduling_and_cancelling_refuse_unknown_fields(organiser):
    tournament_id = client(organiser).post("/api/tournaments/", NEW, format="json").json()["id"]
    [version] = strategy_bots(1)
    api = client(organiser)

    entry = api.post(
        f"/api/tournaments/{tournament_id}/entrants/",
        {"version": version.pk, "seat": 1},
        format="json",
    )
    schedule = api.post(
        f"/api/tournaments/{tournament_id}/schedule/",
        {"starts_at": "2030-01-01T00:00:00Z", "at": "now"},
        format="json",
    )
    cancel = api.post(
        f"/api/tournaments/{tournament_id}/cancel/", {"reason": "x", "why": "y"}, format="json"
    )

    for response, name in ((entry, "seat"), (schedule, "at"), (cancel, "why")):
        assert response.status_code == 400, response.json()
        assert response.json()["detail"][name][0].startswith("unknown field")
    tournament = Tournament.objects.get(pk=tournament_id)
    assert tournament.status == Tournament.Status.DRAFT and not Entrant.objects.exists()
