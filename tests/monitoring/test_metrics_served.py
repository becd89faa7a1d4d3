"""A real gunicorn with two workers and a real Celery worker with two processes, sharing one
``PROMETHEUS_MULTIPROC_DIR`` as processes on one host do: after a small tournament, every
process's counts add up in one scrape of ``/metrics``, which prometheus_client's parser reads.
"""

from __future__ import annotations

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from prometheus_client.parser import text_string_to_metric_families

from matches.models import Match
from ops.page_benchmarks import gunicorn_serving
from tests.tournaments.conftest import SHORT_SNAG, _test_database_url, strategy_bots, wait_until
from tournaments.models import Tournament
from tournaments.services import round_robin_create

pytestmark = [pytest.mark.services, pytest.mark.slow(seconds=45)]

TOKEN = "scrape-token-for-the-test"
REQUESTS = 24


def scrape(url: str) -> dict[str, list]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    return {family.name: family.samples for family in text_string_to_metric_families(text)}


def total(samples: dict[str, list], family: str, sample: str, **labels: str) -> float:
    return sum(
        s.value
        for s in samples.get(family, [])
        if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items())
    )


@pytest.mark.django_db(transaction=True)  # the test database, committed as the workers see it
def test_every_process_counts_and_the_counts_add_up_to_the_matches_played(celery_workers, tmp_path):
    shared = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"), "BAIZE_METRICS_TOKEN": TOKEN}
    (tmp_path / "metrics").mkdir()
    celery_workers(**shared)
    tournament = round_robin_create(
        name="scraped", game_id="snag", versions=strategy_bots(3), options=SHORT_SNAG, secret=5
    )
    wait_until(
        lambda: Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED,
        "the tournament to finish",
    )
    played = Match.objects.filter(
        tournament_match__tournament=tournament, status=Match.Status.FINISHED
    ).count()
    assert played == 6
    env = {**shared, "DATABASE_URL": _test_database_url()}
    with gunicorn_serving(workers=2, threads=1, env=env) as base:
        with ThreadPoolExecutor(4) as pool:  # side by side, so both workers answer some
            answers = list(pool.map(_get, [f"{base}/api/games/"] * REQUESTS))
        assert all(json.loads(body) for body in answers)
        samples = scrape(f"{base}/metrics")
    organised = {"game": "snag", "kind": "organised"}
    started = total(samples, "baize_matches_started", "baize_matches_started_total", **organised)
    finished = total(samples, "baize_matches_finished", "baize_matches_finished_total", **organised)
    lengths = total(
        samples,
        "baize_match_duration_seconds",
        "baize_match_duration_seconds_count",
        **organised,
    )
    waits = total(samples, "baize_match_queue_wait_seconds", "baize_match_queue_wait_seconds_count")
    print(f"\nscraped: {played} matches played; started {started}, finished {finished}")
    assert started == finished == lengths == waits == played
    assert total(samples, "baize_matches_failed", "baize_matches_failed_total") == 0
    route = {"method": "GET", "route": "api/games/", "status": "200"}
    assert total(samples, "baize_http_requests", "baize_http_requests_total", **route) == (REQUESTS)
    assert total(samples, "baize_workers_alive", "baize_workers_alive") == 1
    assert total(samples, "baize_worker_slots", "baize_worker_slots") == 2
    depth = samples["baize_queue_messages"]
    assert {s.labels["queue"] for s in depth} == {"celery", "sandboxed"}


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()
