"""The leak test on a real worker, PostgreSQL and Redis: one match of each game's
duplicate set is held mid-play by its bot (within its time limits) while its twin finishes;
every public response about both is searched, then the bot is let go and all is public.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from games.rules import GAMES
from matches.models import Match
from matches.selectors import match_event_count
from tests.tournaments.conftest import services_configured, wait_until
from tournaments import services
from tournaments.config import TournamentConfig
from tournaments.models import Tournament

from .test_visibility import assert_everything_shows, assert_nothing_face_down_shows, owned_version

pytestmark = pytest.mark.services

HOOK = "tests.matches.holding_worker"


@pytest.mark.django_db
def test_the_worker_leak_tests_use_the_test_database():
    if not services_configured():
        pytest.skip("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis")
    assert connection.settings_dict["NAME"].startswith("test_")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_match_held_mid_play_on_a_worker_leaks_nothing_until_its_set_is_over(
    celery_workers, client, tmp_path: Path, game_id
):
    celery_workers(hook=HOOK, BAIZE_TEST_HOLD_DIR=str(tmp_path))
    config = TournamentConfig(name=f"held {game_id}", game=game_id, decision_timeout=60.0)
    tournament = services.tournament_create(config=config, secret=f"held-{game_id}")
    for name in ("holder", "steady"):
        services.tournament_enter(tournament=tournament, version=owned_version(None, game_id, name))
    services.tournament_schedule(tournament=tournament, starts_at=timezone.now())
    assert services.tournament_start(tournament_id=tournament.pk)
    matches = Match.objects.filter(tournament_match__tournament=tournament)

    def held_with_its_moves_stored_and_twin_over() -> bool:
        statuses = dict(matches.values_list("status", "pk"))
        if not (tmp_path / "held").exists() or set(statuses) != {"running", "finished"}:
            return False
        return match_event_count(match_id=statuses["running"], type="decision") >= 12

    try:
        wait_until(held_with_its_moves_stored_and_twin_over, "a match held mid-play, its twin over")
        playing = matches.get(status=Match.Status.RUNNING)
        over = matches.get(status=Match.Status.FINISHED)
        seed = playing.seed
        assert_nothing_face_down_shows(client, playing=playing, over=over, seed=seed)

    finally:
        # Let the held bot go, pass or fail: it would outlive a stopped worker.
        (tmp_path / "release").touch()
    wait_until(
        lambda: Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED,
        "the tournament to finish",
    )
    assert_everything_shows(client, matches=list(matches), seed=seed)
