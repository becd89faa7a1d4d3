"""Per-tournament limits: a time bank and sandbox-limit overrides, set at creation, checked,
changeable until the start, inherited from recurring templates, and used by every match."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.utils import timezone
from rest_framework.test import APIClient

from arena.runner import BuiltinLauncher, ScriptLauncher
from games.events import EventType
from matches.selectors import match_event_records
from tournaments import services
from tournaments.models import RecurringTournament, Tournament
from tournaments.tasks import tournament_match_play
from tournaments.tick import tournaments_tick

from .conftest import SHORT_SNAG, current_matches, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db

NEW = {"name": "Tight cup", "game": "snag", "options": SHORT_SNAG}
#: Answers at once, except its first decision, which takes half a second.
SLOW_ONCE_BOT = """\
import json
import sys
import time

slow = True
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "decide":
        if slow:
            time.sleep(0.5)
            slow = False
        print(json.dumps({"action": message["observation"]["legal_actions"][0]}), flush=True)
    elif message["type"] == "end":
        break
"""


@pytest.fixture
def organiser_api(db):
    user = User.objects.create_user("organiser")
    user.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_an_organiser_creates_a_tournament_with_its_own_time_bank_and_sandbox_limits(
    organiser_api,
):
    limits = {"time_bank_seconds": 2.5, "sandbox_overrides": {"memory_bytes": 128 << 20}}
    response = organiser_api.post("/api/tournaments/", {**NEW, **limits}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["time_bank_seconds"] == 2.5
    assert body["sandbox_overrides"] == {"memory_bytes": 128 << 20}
    tournament = Tournament.objects.get(pk=body["id"])
    assert (tournament.time_bank_seconds, tournament.sandbox_overrides) == (
        2.5,
        {"memory_bytes": 128 << 20},
    )


def test_a_tournament_created_without_limits_takes_the_settings_time_bank(organiser_api, settings):
    settings.BAIZE_TIME_BANK_SECONDS = 7.5
    body = organiser_api.post("/api/tournaments/", NEW, format="json").json()
    assert (body["time_bank_seconds"], body["sandbox_overrides"]) == (7.5, {})


@pytest.mark.parametrize(
    ("limits", "field", "message"),
    [
        ({"sandbox_overrides": {"gpus": 2}}, "sandbox_overrides", "unknown sandbox limit 'gpus'"),
        (
            {"sandbox_overrides": {"memory_bytes": 1 << 40}},
            "sandbox_overrides",
            "sandbox limit memory_bytes must be an integer from",
        ),
        ({"sandbox_overrides": {"cpu_seconds": "lots"}}, "sandbox_overrides", "valid integer"),
        ({"sandbox_overrides": [1]}, "sandbox_overrides", "dictionary"),
        (
            {"time_bank_seconds": -1},
            "time_bank_seconds",
            "time_bank_seconds must be from 0 to 3600",
        ),
    ],
)
def test_a_bad_limit_is_refused_with_a_400_naming_it(organiser_api, limits, field, message):
    response = organiser_api.post("/api/tournaments/", {**NEW, **limits}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid" and message in str(body["detail"][field])
    assert not Tournament.objects.exists()


def test_limits_change_until_the_start_and_are_checked_like_the_rest():
    tournament = tournament_with(strategy_bots(2))
    assert services.tournament_configure(
        tournament=tournament, time_bank_seconds=1.0, sandbox_overrides={"cpu_seconds": 5}
    )
    tournament.refresh_from_db()
    assert (tournament.time_bank_seconds, tournament.sandbox_overrides) == (1.0, {"cpu_seconds": 5})
    with pytest.raises(services.TournamentError, match="unknown sandbox limit 'swap'"):
        services.tournament_configure(tournament=tournament, sandbox_overrides={"swap": 1})
    with pytest.raises(services.TournamentError, match="time_bank_seconds must be from 0"):
        services.tournament_configure(tournament=tournament, time_bank_seconds=1e6)
    start(tournament)
    assert not services.tournament_configure(tournament=tournament, time_bank_seconds=9.0)
    tournament.refresh_from_db()
    assert tournament.time_bank_seconds == 1.0


def test_a_recurring_template_hands_its_limits_to_the_tournaments_it_spawns():
    strategy_bots(2)
    template = RecurringTournament.objects.create(
        name="Nightly",
        game="snag",
        options=SHORT_SNAG,
        time_bank_seconds=0.5,
        sandbox_overrides={"processes": 8},
        every=timedelta(days=1),
        next_start_at=timezone.now() - timedelta(minutes=1),
    )
    tournaments_tick()
    spawned = Tournament.objects.get(recurrence=template)
    assert (spawned.time_bank_seconds, spawned.sandbox_overrides) == (0.5, {"processes": 8})


@pytest.mark.parametrize(("time_bank", "reason"), [(0.0, "forfeit"), (2.0, "played")])
def test_the_match_task_plays_under_the_tournaments_limits(
    monkeypatch, tmp_path, time_bank, reason
):
    """A half-second decision against a 50 ms limit: only a time bank to draw on saves it."""
    script = tmp_path / "slow_once.py"
    script.write_text(SLOW_ONCE_BOT)
    slow, fast = strategy_bots(2)
    overrides_given = []

    def launcher_for(version, *, bot_seed=None, **sandbox_overrides):
        overrides_given.append(sandbox_overrides)
        return ScriptLauncher(script) if version == slow else BuiltinLauncher(version.builtin)

    monkeypatch.setattr("matches.play.launcher_for", launcher_for)
    tournament = tournament_with(
        [slow, fast],
        decision_timeout=0.05,
        time_bank_seconds=time_bank,
        sandbox_overrides={"cpu_seconds": 5},
    )
    match = current_matches(start(tournament)).first().match
    tournament_match_play(match.pk)
    match.refresh_from_db()
    assert overrides_given == [{"cpu_seconds": 5}] * 2
    assert match.status == "finished" and match.result_reason == reason
    log = match_event_records(match=match)
    forfeits = [record.payload for record in log if record.type == EventType.FORFEIT]
    if reason == "forfeit":
        slow_seat = match.seats.get(version=slow).seat
        assert [(f["seat"], f["reason"]) for f in forfeits] == [(slow_seat, "timeout")]
    else:
        assert forfeits == []


ADMIN_ADD = "/admin/tournaments/tournament/add/"
ADMIN_FORM = {
    "name": "Admin cup",
    "game": "snag",
    "format": "round_robin",
    "options": '{"target": 15}',
    "sets_per_pair": "1",
    "decision_timeout": "0.5",
    "entrants-TOTAL_FORMS": "0",
    "entrants-INITIAL_FORMS": "0",
    "pairings-TOTAL_FORMS": "0",
    "pairings-INITIAL_FORMS": "0",
}


def test_the_admin_form_sets_the_limits_and_refuses_a_bad_one(admin_client):
    refused = admin_client.post(ADMIN_ADD, {**ADMIN_FORM, "sandbox_overrides": '{"gpus": 1}'})
    assert refused.status_code == 200 and b"unknown sandbox limit" in refused.content
    limits = {"time_bank_seconds": "3", "sandbox_overrides": '{"open_files": 32}'}
    assert admin_client.post(ADMIN_ADD, {**ADMIN_FORM, **limits}).status_code == 302
    tournament = Tournament.objects.get()
    assert (tournament.time_bank_seconds, tournament.sandbox_overrides) == (3.0, {"open_files": 32})
    page = admin_client.get(f"/admin/tournaments/tournament/{tournament.pk}/change/")
    assert b'name="time_bank_seconds"' in page.content
