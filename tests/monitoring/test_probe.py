"""The containers' health checks read the heartbeats of their host."""

from __future__ import annotations

import time

import pytest

from monitoring import heartbeat, probe


@pytest.fixture
def heartbeats(tmp_path, monkeypatch, settings):
    settings.VAR_DIR = tmp_path
    monkeypatch.setenv("BAIZE_VAR_DIR", str(tmp_path))
    return tmp_path


def beat(**facts):
    base = {"name": "celery@host", "concurrency": 2, "busy": 1, "queues": ["celery"]}
    heartbeat.heartbeat_write(heartbeat.heartbeat_file("worker", "celery@host"), {**base, **facts})


def test_a_worker_is_healthy_while_it_beats_and_says_a_sandbox_below_full(heartbeats):
    assert probe.worker() == (False, probe.worker()[1])
    beat(sandbox="full", sandbox_reason="", database="ok")
    assert probe.worker() == (True, "celery@host: alive, 1 of 2 busy; sandbox full")
    beat(sandbox="namespaces", sandbox_reason="no seccomp", database="ok")
    healthy, said = probe.worker()
    assert healthy and "below full (no seccomp): it takes no uploaded code" in said


def test_a_worker_that_stopped_beating_or_lost_its_database_is_not(heartbeats, monkeypatch):
    beat(sandbox="full", sandbox_reason="", database="unreachable: OperationalError")
    assert probe.worker()[0] is False
    beat(sandbox="full", sandbox_reason="", database="ok")
    later = time.time() + probe.ALIVE_SECONDS + 1
    monkeypatch.setattr(probe.time, "time", lambda: later)
    assert probe.worker()[0] is False


def test_the_beat_is_healthy_while_it_sends_its_ticks(heartbeats, monkeypatch):
    monkeypatch.setenv("BAIZE_TICK_SECONDS", "10")
    assert probe.beat()[0] is False
    heartbeat.beat_heartbeat_write("beat@host")
    assert probe.beat()[0] is True
    later = time.time() + 41
    monkeypatch.setattr(probe.time, "time", lambda: later)
    assert probe.beat()[0] is False
