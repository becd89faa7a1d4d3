"""The ladder from the tick alone, on PostgreSQL, Redis and real Celery workers.

Two authors, five bots; beat sends the tick every second. A new version joins and plays its
placement sets; a challenge and a version test run beside the ladder and finish with their
results; the ratings the ladder wrote recompute the same from the logs.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection

from bots.models import BotVersion
from ladder import selectors
from ladder.services import challenge_create, version_test_create
from tests.tournaments.conftest import services_configured, strategy_bots, wait_until
from tournaments.models import DuplicateSet, Tournament
from tournaments.ratings.models import RatingUpdate
from tournaments.ratings.services import ratings_recompute
from tournaments.sprt import SprtParameters

pytestmark = pytest.mark.services

LADDER = {
    "BAIZE_TICK_SECONDS": "1",
    "BAIZE_LADDER_SETS_IN_FLIGHT": "2",
    "BAIZE_LADDER_PLACEMENT_SETS": "3",
}


@pytest.mark.django_db
def test_the_worker_ladder_tests_use_the_test_database():
    if not services_configured():
        pytest.skip("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis")
    assert connection.settings_dict["NAME"].startswith("test_")


def ladder_sets(version: BotVersion) -> int:
    row = next((r for r in selectors.ladder_table(game_id="snag") if r.version == version), None)
    return row.sets if row else 0


def test_the_ladder_runs_from_the_tick_and_authors_get_their_answers(celery_workers, settings):
    settings.BAIZE_LADDER_PLACEMENT_SETS = 3  # what this process reads, as the workers do
    alice = User.objects.create_user("alice")
    bob = User.objects.create_user("bob")
    alices = strategy_bots(3, owner=alice)
    bobs = strategy_bots(2, owner=bob)
    celery_workers(beat=True, **LADDER)

    wait_until(
        lambda: all(ladder_sets(v) >= 2 for v in alices + bobs), "every bot to play ladder sets"
    )
    newcomer = BotVersion.objects.create(
        bot=bobs[1].bot, number=2, builtin="snag_heuristic", content_hash="v2", status="ready"
    )
    wait_until(lambda: ladder_sets(newcomer) >= 3, "the new version's placement sets")
    challenge = challenge_create(user=bob, version=newcomer, opponent=alices[1], sets=3)
    test = version_test_create(
        user=alice, candidate=alices[0], baseline=alices[1], parameters=SprtParameters()
    )
    wait_until(
        lambda: (
            Tournament.objects.filter(
                pk__in=[challenge.pk, test.pk], status=Tournament.Status.FINISHED
            ).count()
            == 2
        ),
        "the challenge and the version test to finish",
    )

    table = selectors.ladder_table(game_id="snag")
    assert {row.version for row in table} == {*alices, bobs[0], newcomer}
    placed = next(row for row in table if row.version == newcomer)
    assert not placed.placing and placed.sets >= 3
    assert selectors.head_to_head(tournament=challenge).sets == 3
    progress = selectors.version_test_progress(tournament=test)
    assert progress.verdict == "better" and progress.llr >= progress.upper_bound
    ladder_sets_rated = RatingUpdate.objects.filter(
        duplicate_set__pairing__tournament__format="ladder"
    ).count()
    assert ladder_sets_rated >= 8
    unrated = DuplicateSet.objects.filter(
        pairing__tournament__in=[challenge, test], rating_update__isnull=False
    )
    assert not unrated.exists(), "challenges and tests leave the ratings alone"
    assert ratings_recompute(game_id="snag", write=False).identical
