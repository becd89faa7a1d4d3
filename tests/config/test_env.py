"""Settings read from the environment refuse bad values with a message naming the variable."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

import config
from config.env import env_bool, env_choice, env_float, env_int, env_list, env_rate

SETTINGS_FILE = f"{config.__path__[0]}/settings.py"
BASE_DIR = Path(config.__path__[0]).parent


def test_unset_variables_give_their_defaults(monkeypatch):
    monkeypatch.delenv("BAIZE_X", raising=False)
    assert env_int("BAIZE_X", 3) == 3
    assert env_float("BAIZE_X", 1.5) == 1.5
    assert env_bool("BAIZE_X", True) is True
    assert env_list("BAIZE_X", ["a"]) == ["a"]


def test_set_variables_are_parsed(monkeypatch):
    monkeypatch.setenv("BAIZE_X", "7")
    assert env_int("BAIZE_X", 3) == 7 and env_float("BAIZE_X", 1.0) == 7.0
    monkeypatch.setenv("BAIZE_X", "off")
    assert env_bool("BAIZE_X", True) is False
    monkeypatch.setenv("BAIZE_X", "a, b,,c")
    assert env_list("BAIZE_X", []) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("reader", "default", "raw", "message"),
    [
        (env_int, 1, "seven", "must be a whole number"),
        (env_int, 1, "0.5", "must be a whole number"),
        (env_int, 1, "-1", "must be at least 0"),
        (env_float, 1.0, "fast", "must be a finite number"),
        (env_float, 1.0, "nan", "must be a finite number"),
        (env_float, 1.0, "inf", "must be a finite number"),
        (env_bool, True, "maybe", "must be a boolean"),
    ],
)
def test_bad_values_name_the_variable_and_the_problem(monkeypatch, reader, default, raw, message):
    monkeypatch.setenv("BAIZE_X", raw)
    with pytest.raises(ImproperlyConfigured, match=f"BAIZE_X {message}"):
        reader("BAIZE_X", default)


def test_a_choice_and_a_rate_are_read_and_checked(monkeypatch):
    monkeypatch.setenv("BAIZE_X", "info")
    assert env_choice("BAIZE_X", "WARNING", ("INFO", "WARNING")) == "INFO"
    monkeypatch.setenv("BAIZE_X", "loud")
    with pytest.raises(ImproperlyConfigured, match="BAIZE_X must be one of INFO, WARNING"):
        env_choice("BAIZE_X", "WARNING", ("INFO", "WARNING"))
    monkeypatch.setenv("BAIZE_X", "5/minute")
    assert env_rate("BAIZE_X", "1/day") == "5/minute"
    monkeypatch.setenv("BAIZE_X", "5 per minute")
    with pytest.raises(ImproperlyConfigured, match="BAIZE_X must be requests per second"):
        env_rate("BAIZE_X", "1/day")


def _settings_module() -> dict[str, Any]:
    """The settings module run afresh, as a process reads it at start (under another name:
    the settings Django already holds stay as they are)."""
    spec = importlib.util.spec_from_file_location("config.settings_at_start", SETTINGS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


def test_the_settings_of_the_test_environment_load():
    loaded = _settings_module()
    assert loaded["BAIZE_TICK_SECONDS"] >= 1
    assert loaded["CELERY_BEAT_SCHEDULE"]["ladder-tick"]["schedule"] == loaded["BAIZE_TICK_SECONDS"]


def test_a_tick_of_whole_seconds_is_accepted(monkeypatch):
    monkeypatch.setenv("BAIZE_TICK_SECONDS", "2")
    schedule = _settings_module()["CELERY_BEAT_SCHEDULE"]
    assert {entry["schedule"] for entry in schedule.values()} == {2}


def test_https_sends_the_sign_in_cookies_over_https_only(monkeypatch):
    assert _settings_module()["SESSION_COOKIE_SECURE"] is False
    monkeypatch.setenv("BAIZE_HTTPS", "1")
    monkeypatch.setenv("CSRF_TRUSTED_ORIGINS", "https://baize.example.org")
    loaded = _settings_module()
    assert loaded["SESSION_COOKIE_SECURE"] is loaded["CSRF_COOKIE_SECURE"] is True
    assert loaded["CSRF_TRUSTED_ORIGINS"] == ["https://baize.example.org"]


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("BAIZE_TICK_SECONDS", "0.5", "whole number.*the beat schedule counts whole seconds"),
        ("BAIZE_TICK_SECONDS", "0", "must be at least 1"),
        ("BAIZE_TICK_SECONDS", "1.5", "whole number"),
        ("BAIZE_MATCH_LEASE_SECONDS", "1", "must be at least 2"),
        ("BAIZE_MATCH_REDISPATCH_SECONDS", "0", "must be at least 1"),
        ("BAIZE_MATCH_ATTEMPTS", "0", "must be at least 1"),
        ("BAIZE_DECISION_TIMEOUT", "0", "must be at least 0.01"),
        ("BAIZE_DECISION_TIMEOUT", "nan", "must be a finite number"),
        ("BAIZE_BOT_START_TIMEOUT", "inf", "must be a finite number"),
        ("BAIZE_TIME_BANK_SECONDS", "-1", "must be at least 0"),
        ("CELERY_VISIBILITY_TIMEOUT", "0", "must be at least 1"),
        ("CELERY_BROKER_URL", "amqp://guest@localhost//", "must be a redis:// or rediss:// URL"),
        ("DATABASE_URL", "postgres//nowhere", "must be a database URL"),
        ("DATABASE_CONN_MAX_AGE", "-1", "must be at least 0"),
        ("ALLOWED_HOSTS", " , ", "must name at least one host"),
        ("LOG_LEVEL", "loud", "must be one of DEBUG, INFO, WARNING"),
        ("BAIZE_CACHE", "memcached://x", "must be locmem, db or a redis:// URL"),
        ("BAIZE_SIGN_UP_RATE", "ten an hour", "must be requests per"),
        ("BAIZE_TOKEN_RATE", "30/fortnight", "must be requests per"),
        ("BAIZE_UPLOAD_RATE", "/hour", "must be requests per"),
        ("BAIZE_PIN_MATCHES", "maybe", "must be a boolean"),
        ("BAIZE_SANDBOX_PYTHON", "python3", "must be an absolute path"),
        ("BAIZE_SANDBOX_UID_BASE", str(2**32 - 10), "must stay within Linux's uids"),
        ("BAIZE_SANDBOX_SLOTS", "1", "must be at least 2"),
        ("BAIZE_SANDBOX_SLOTS", "100001", "at most 100000 .the uids between two leased ranges"),
        ("BAIZE_SANDBOX_RANGES_BASE", "4294000000", "must stay within Linux's uids"),
        ("BAIZE_SANDBOX_RANGES", "0", "must be at least 1"),
        ("BAIZE_SANDBOX_LEASE_SECONDS", "2", "must be at least 3"),
        ("BAIZE_SANDBOX_MEMORY_MB", "32", "must be at least 64"),
        ("BAIZE_UPLOAD_MAX_BYTES", "100", "must be at least 1024"),
        ("BAIZE_LADDER_SETS_IN_FLIGHT", "-1", "must be at least 0"),
        ("BAIZE_LADDER_PAIR_CAP", "0", "must be at least 1"),
        ("BAIZE_AUTHOR_SETS_PER_DAY", "0", "must be at least 1"),
        ("BAIZE_TRUSTED_PROXIES", "two", "must be a whole number"),
        ("LOG_FORMAT", "xml", "must be one of TEXT, JSON"),
        ("BAIZE_METRICS", "maybe", "must be a boolean"),
        ("BAIZE_WORKER_METRICS_PORT", "-1", "must be at least 0"),
        ("PROMETHEUS_MULTIPROC_DIR", "/proc/baize-metrics", "cannot be created"),
    ],
)
def test_a_setting_the_service_cannot_honour_stops_it_at_start(
    monkeypatch, variable, value, message
):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ImproperlyConfigured, match=f"{variable}.*{message}|{message}"):
        _settings_module()


@pytest.mark.parametrize(("value", "base"), [("", None), ("3000000", 3_000_000)])
def test_an_empty_uid_base_is_none_and_a_worker_leases_its_range(monkeypatch, value, base):
    monkeypatch.setenv("BAIZE_SANDBOX_UID_BASE", value)
    assert _settings_module()["BAIZE_SANDBOX_UID_BASE"] == base


@pytest.fixture
def no_secret(monkeypatch):
    """No SECRET_KEY and no DEBUG, as a deployment that forgot its key, or a bot author's
    machine, starts; the command line is the test's to set."""
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("DEBUG", raising=False)

    def command_line(*argv: str) -> None:
        monkeypatch.setattr(sys, "argv", list(argv))

    return command_line


@pytest.mark.parametrize("command", ["play", "version_test"])
def test_a_home_play_command_needs_no_secret_and_gets_a_key_of_its_own(no_secret, command):
    no_secret("/home/ada/baize/manage.py", command, "snag", "bot.py", "random")
    first, second = _settings_module(), _settings_module()

    assert first["DEBUG"] is False
    assert len(first["SECRET_KEY"]) >= 50 and first["SECRET_KEY"] != second["SECRET_KEY"]


@pytest.mark.parametrize(
    "argv",
    [
        ["manage.py", "runserver"],
        ["manage.py", "migrate"],
        ["/venv/bin/gunicorn", "play"],
        ["/venv/bin/celery", "-A", "config", "worker"],
        ["-c", "play"],
        ["manage.py"],
    ],
)
def test_everything_else_still_refuses_to_start_without_a_secret(no_secret, argv):
    no_secret(*argv)
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set unless DEBUG=1"):
        _settings_module()


def test_the_guide_s_first_command_plays_with_neither_debug_nor_a_secret(tmp_path):
    """docs/bot-author-guide.md, section 1, as a new author types it (without --quiet)."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("SECRET_KEY", "DEBUG", "DJANGO_SETTINGS_MODULE", "DATABASE_URL")
    }
    environment["BAIZE_VAR_DIR"] = str(tmp_path)
    played = subprocess.run(
        [sys.executable, "manage.py", "play", "snag", "examples/snag/bot.py", "random"],
        cwd=BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert played.returncode == 0, played.stderr
    assert "winner: seat" in played.stdout
