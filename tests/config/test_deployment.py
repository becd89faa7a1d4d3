"""docker-compose.yml describes the real deployment: what it must say, read from the file
(``make deploy-check`` runs it for real)."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
services = compose["services"]


def test_it_runs_web_worker_beat_postgres_and_redis():
    assert set(services) == {"web", "worker", "beat", "postgres", "redis"}


def test_the_app_services_share_one_configuration_from_the_environment():
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["CELERY_BROKER_URL"].startswith("redis://redis:")
        assert "SECRET_KEY" in env
        assert set(services[name]["depends_on"]) == {"postgres", "redis"}


def test_worker_and_beat_run_the_projects_celery_app():
    worker = shlex.split(services["worker"]["command"])
    beat = shlex.split(services["beat"]["command"])
    assert worker[:4] == ["celery", "-A", "config", "worker"]
    # Celery's global --quiet (no start-up banner, so JSON logs stay JSON) may come first.
    assert [word for word in beat if word != "--quiet"][:4] == ["celery", "-A", "config", "beat"]
    assert (ROOT / "config" / "celery.py").exists()


def test_the_web_service_migrates_then_serves_the_wsgi_app():
    command = services["web"]["command"]
    assert "manage.py migrate" in command
    assert "config.wsgi:application" in command


def test_the_databases_have_health_checks_the_app_waits_for():
    for name in ("postgres", "redis"):
        assert services[name]["healthcheck"]["test"]
    assert services["web"]["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_the_image_is_built_from_the_projects_dockerfile():
    assert services["web"]["build"]["context"] == "."
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install" in dockerfile and "USER baize" in dockerfile


def test_the_image_carries_every_app_and_what_the_sandbox_needs():
    dockerfile = (ROOT / "Dockerfile").read_text()
    # Every package the project installs (pyproject's list), apps or not.
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    packages = [pattern.rstrip("*") for pattern in found["find"]["include"]]
    assert "errors" in packages and "ops" in packages
    for package in packages:
        assert f"COPY {package} ./{package}" in dockerfile, f"the image lacks {package}/"
    for needed in ("bubblewrap", "util-linux", "python3", "python3-seccomp"):
        assert needed in dockerfile.split("apt-get install", 1)[1].split("&&", 1)[0]


def test_only_the_worker_gets_the_privileges_the_sandbox_probe_requires():
    worker = services["worker"]
    assert worker["user"] == "root"
    assert set(worker["security_opt"]) == {"seccomp=unconfined", "apparmor=unconfined"}
    # Only for its entrypoint, which unmasks /proc and drops it before Celery starts.
    assert worker["cap_add"] == ["SYS_ADMIN"]
    assert worker["entrypoint"] == ["/app/deploy/worker-entrypoint"]
    entrypoint = (ROOT / "deploy" / "worker-entrypoint").read_text()
    assert "--bounding-set=-sys_admin" in entrypoint
    for name, service in services.items():
        assert not service.get("privileged"), f"{name} is privileged"
    for name in ("web", "beat"):
        assert "user" not in services[name] and "security_opt" not in services[name]
        assert "cap_add" not in services[name]


def test_workers_share_nothing_but_the_database_and_the_broker():
    for name in ("web", "worker", "beat"):
        assert "volumes" not in services[name], f"{name} mounts a volume"
    assert set(compose["volumes"]) == {"postgres-data"}


def test_each_worker_container_leases_a_uid_range_of_its_own_unless_one_is_fixed():
    environment = services["worker"]["environment"]
    # Empty unless the operator sets it: empty is unset, and a worker leases its range.
    assert environment["BAIZE_SANDBOX_UID_BASE"] == "${BAIZE_SANDBOX_UID_BASE:-}"
    assert environment["BAIZE_SANDBOX_RANGES_BASE"] == "${BAIZE_SANDBOX_RANGES_BASE:-10000000}"
    check = yaml.safe_load((ROOT / "deploy" / "check.compose.yml").read_text())["services"]
    assert "BAIZE_SANDBOX_UID_BASE" not in check["worker"]["environment"]
    assert set(check) == {"web", "beat", "worker"}, "the check scales the one worker service"


def test_the_worker_has_a_memory_limit_above_what_its_bots_may_take():
    from django.conf import settings

    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    limit = services["worker"]["mem_limit"]
    limit_bytes = int(limit[:-1]) * units[limit[-1].lower()]
    concurrency = int(services["worker"]["command"].split("--concurrency=")[1].split()[0])
    per_bot = (
        settings.BAIZE_SANDBOX_LIMITS["memory_bytes"]
        + 2 * (settings.BAIZE_SANDBOX_LIMITS["tmp_bytes"])
    )
    # Two bots a match, one match per pool process, and room for the worker itself.
    assert limit_bytes >= concurrency * 2 * per_bot + (256 << 20)
