"""The metrics a small tournament played in this process records, and who may read them."""

from __future__ import annotations

import pytest
from django.test import Client
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from matches.models import Match
from monitoring.exposition import scrape
from tests.tournaments.conftest import play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_played_round_robin_counts_each_match_started_and_finished_once(
    django_capture_on_commit_callbacks,
):
    before = {
        name: value(name, game="snag", kind="organised")
        for name in ("baize_matches_started_total", "baize_matches_finished_total")
    }
    durations = value("baize_match_duration_seconds_count", game="snag", kind="organised")
    decisions = value("baize_match_decisions_count", game="snag")
    with django_capture_on_commit_callbacks(execute=True):  # a result is announced on commit
        tournament = play_all(start(tournament_with(strategy_bots(3))))
    played = Match.objects.filter(
        tournament_match__tournament=tournament, status=Match.Status.FINISHED
    ).count()
    assert played == 6
    for name, was in before.items():
        assert value(name, game="snag", kind="organised") == was + played
    assert value("baize_match_duration_seconds_count", game="snag", kind="organised") == (
        durations + played
    )
    assert value("baize_match_decisions_count", game="snag") == decisions + played


def test_the_exposition_parses_and_names_every_family_by_the_conventions():
    families = {family.name: family for family in text_string_to_metric_families(scrape().decode())}
    assert families["baize_matches_finished"].type == "counter"
    assert families["baize_match_duration_seconds"].type == "histogram"
    assert families["baize_workers_alive"].type == "gauge"
    for name in families:
        if name.startswith("baize_"):
            assert name == name.lower() and "__" not in name


def test_metrics_are_refused_to_anyone_but_staff_or_the_token(settings, django_user_model):
    settings.BAIZE_METRICS_TOKEN = "s3cret-token"
    client = Client()
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    answered = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token")
    assert answered.status_code == 200 and b"baize_http_requests_total" in answered.content
    author = django_user_model.objects.create_user("author", password="x")
    client.force_login(author)
    assert client.get("/metrics").status_code == 404
    staff = django_user_model.objects.create_user("operator", password="x", is_staff=True)
    client.force_login(staff)
    assert client.get("/metrics").status_code == 200


def test_without_a_token_set_no_bearer_opens_the_metrics(settings):
    settings.BAIZE_METRICS_TOKEN = ""
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


def test_a_request_is_counted_by_its_url_pattern_not_its_path():
    labels = {"method": "GET", "route": "tournaments/<int:pk>/", "status": "404"}
    was = value("baize_http_requests_total", **labels)
    Client().get("/tournaments/987654/")
    Client().get("/tournaments/987655/")
    assert value("baize_http_requests_total", **labels) == was + 2
    unmatched = {"method": "GET", "route": "<unmatched>", "status": "404"}
    was = value("baize_http_requests_total", **unmatched)
    Client().get("/no/such/page/at/all")
    assert value("baize_http_requests_total", **unmatched) == was + 1


def test_a_request_gets_an_id_and_keeps_a_sane_one_it_sent():
    sent = Client().get("/tournaments/", HTTP_X_REQUEST_ID="trace-42")
    assert sent["X-Request-ID"] == "trace-42"
    odd = Client().get("/tournaments/", HTTP_X_REQUEST_ID="no spaces\nplease")
    assert odd["X-Request-ID"] != "no spaces\nplease" and len(odd["X-Request-ID"]) == 32


@pytest.mark.parametrize(
    "backend", ["CountedDatabaseCache", "CountedLocMemCache", "CountedRedisCache"]
)
def test_the_cache_counts_each_read_once_as_a_hit_or_a_miss(backend, settings):
    from django.core.cache import caches

    from monitoring import cache as counted

    location = {
        "CountedDatabaseCache": settings.CACHE_TABLE,
        "CountedLocMemCache": "metrics-test",
        "CountedRedisCache": settings.CACHES["default"].get("LOCATION", ""),
    }[backend]
    if backend == "CountedRedisCache" and not location.startswith("redis://"):
        pytest.skip("this run's cache is not Redis (the services pass reads one)")
    settings.CACHES = {**settings.CACHES, "counted": {"BACKEND": f"monitoring.cache.{backend}"}}
    settings.CACHES["counted"]["LOCATION"] = location
    cache = caches["counted"]
    assert isinstance(cache, getattr(counted, backend))
    cache.delete_many(["metrics-a", "metrics-b"])
    hits, misses = (
        value("baize_cache_gets_total", result="hit"),
        value("baize_cache_gets_total", result="miss"),
    )
    assert cache.get("metrics-a") is None
    cache.set("metrics-a", 0)
    assert cache.get("metrics-a") == 0
    assert cache.get_many(["metrics-a", "metrics-b"]) == {"metrics-a": 0}
    assert value("baize_cache_gets_total", result="hit") == hits + 2
    assert value("baize_cache_gets_total", result="miss") == misses + 2
    cache.delete_many(["metrics-a", "metrics-b"])
