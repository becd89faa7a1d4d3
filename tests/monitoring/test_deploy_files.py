"""The scrape configuration and the dashboard in deploy/ agree with what Baize serves."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from prometheus_client import Counter, Histogram

from monitoring import metrics

ROOT = Path(__file__).resolve().parents[2]
#: The families read at scrape time, beside those ``monitoring.metrics`` records.
READ_AT_SCRAPE = {"baize_queue_messages", "baize_workers_alive", "baize_worker_slots"}


def served_families() -> set[str]:
    recorded = {
        value._name for value in vars(metrics).values() if isinstance(value, Counter | Histogram)
    }
    return recorded | READ_AT_SCRAPE


def test_every_metric_the_dashboard_graphs_is_one_baize_serves():
    dashboard = json.loads((ROOT / "deploy/grafana-dashboard.json").read_text())
    named = {
        re.sub(r"_(total|bucket|count|sum)$", "", name)
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"baize_[a-z_]+", target["expr"])
    }
    assert named and named <= served_families()
    assert served_families() - named == set(), "a metric no panel shows"


def test_prometheus_scrapes_the_compose_services_where_they_serve():
    scrape = yaml.safe_load((ROOT / "deploy/prometheus.yml").read_text())
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    jobs = {job["job_name"]: job for job in scrape["scrape_configs"]}
    web = jobs["baize-web"]["dns_sd_configs"][0]
    worker = jobs["baize-worker"]["dns_sd_configs"][0]
    assert web["names"] == ["web"] and web["port"] == 8000
    assert worker["names"] == ["worker"]
    assert worker["port"] == int(
        compose["services"]["worker"]["environment"]["BAIZE_WORKER_METRICS_PORT"]
    )
    for job in jobs.values():
        assert job["authorization"]["type"] == "Bearer"


def test_every_app_container_counts_in_a_tmpfs_of_its_own_and_checks_its_health():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name in ("web", "worker", "beat"):
        service = compose["services"][name]
        directory = service["environment"]["PROMETHEUS_MULTIPROC_DIR"]
        assert directory in [entry.split(":")[0] for entry in service["tmpfs"]]
        assert service["healthcheck"]["test"][-2:] == ["monitoring.probe", name]
