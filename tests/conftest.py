"""Shared fixtures, and the rule that service tests never skip silently in CI."""

from __future__ import annotations

import os

import pytest

REQUIRE_SERVICES = os.environ.get("BAIZE_REQUIRE_SERVICES") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    # CI sets BAIZE_REQUIRE_SERVICES: a test that needs PostgreSQL, Redis or a worker and
    # skipped for want of them is a failure there, not a pass.
    if REQUIRE_SERVICES and report.skipped and item.get_closest_marker("services"):
        report.outcome = "failed"
        report.longrepr = f"services test skipped while BAIZE_REQUIRE_SERVICES=1: {report.longrepr}"
