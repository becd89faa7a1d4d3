"""Twins never overlap, on a real worker: a challenge of several sets between an uploaded
bot (sandboxed, with and without series) and a built-in bot, played by a worker with two
processes on PostgreSQL and Redis. From the matches' own timestamps, no match of a duplicate
set starts before its twin has ended.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from bots.services.bots import builtin_bots_sync
from ladder.services import challenge_create
from matches.models import Match
from tests.tournaments.conftest import wait_until
from tournaments.models import Tournament, TournamentMatch, current

from .test_series_in_tournaments import uploaded

pytestmark = [pytest.mark.services, pytest.mark.sandbox]

SETS = 6


@pytest.mark.parametrize("series", [True, False], ids=["series", "one-match-per-process"])
def test_no_match_of_a_set_starts_before_its_twin_has_ended_on_a_two_process_worker(
    celery_workers, sandbox, code_store, series
):
    celery_workers(BAIZE_BOT_CODE_DIR=str(code_store))
    author = User.objects.create_user(f"author-{series}", password="x")
    version = uploaded(author, f"twins-{series}", series=series, store=code_store)
    opponent = builtin_bots_sync(game_id="snag")[0]
    challenge = challenge_create(user=author, version=version, opponent=opponent, sets=SETS)

    wait_until(
        lambda: Tournament.objects.get(pk=challenge.pk).status == Tournament.Status.FINISHED,
        "the challenge to finish",
    )
    links = TournamentMatch.objects.filter(current(), tournament=challenge).select_related("match")
    by_set: dict[int, list[Match]] = {}
    for link in links:
        by_set.setdefault(link.duplicate_set_id, []).append(link.match)
    assert len(by_set) == SETS
    for matches in by_set.values():
        first, second = sorted(matches, key=lambda match: match.started_at)
        assert first.status == second.status == Match.Status.FINISHED
        assert second.started_at >= first.finished_at, (
            f"match {second.pk} started at {second.started_at}, before its twin {first.pk}"
            f" ended at {first.finished_at}"
        )
