"""Logs a machine reads: one JSON object a line, with the ids of what was being done."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from monitoring.logs import JsonFormatter, log_context

ROOT = Path(__file__).resolve().parents[2]


def formatted(record: logging.LogRecord) -> dict:
    line = JsonFormatter().format(record)
    assert "\n" not in line
    return json.loads(line)


def record(message: str, exc_info=None) -> logging.LogRecord:
    return logging.LogRecord("baize.test", logging.WARNING, __file__, 1, message, (), exc_info)


def test_a_line_carries_the_ids_set_around_it_then_those_of_before():
    with log_context(request_id=None, task_id=None, match_id=None):
        with log_context(request_id="r-1", match_id=42):
            line = formatted(record("a move\nover two lines"))
        after = formatted(record("later"))
    assert line["message"] == "a move\nover two lines" and line["level"] == "WARNING"
    assert line["request_id"] == "r-1" and line["match_id"] == 42
    assert not {"request_id", "task_id", "match_id"} & set(after)


def test_an_exception_goes_in_the_same_line():
    try:
        raise ValueError("boom")
    except ValueError:
        line = formatted(record("failed", exc_info=sys.exc_info()))
    assert "ValueError: boom" in line["exception"]


@pytest.mark.django_db
def test_a_request_logs_with_its_id(caplog):
    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append(JsonFormatter().format(record))

    handler = Keep()
    logging.getLogger("django.request").addHandler(handler)
    try:
        Client().get("/tournaments/404404/", HTTP_X_REQUEST_ID="trace-7")
    finally:
        logging.getLogger("django.request").removeHandler(handler)
    assert any(json.loads(line).get("request_id") == "trace-7" for line in seen)


def test_log_format_json_makes_every_line_of_a_process_json(tmp_path):
    code = (
        "import django, logging; django.setup();"
        "logging.getLogger('baize').error('hello from %s', 'json')"
    )
    env = {
        **os.environ,
        "LOG_FORMAT": "json",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "BAIZE_VAR_DIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.strip()]
    assert [line["message"] for line in lines] == ["hello from json"]
