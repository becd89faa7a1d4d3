"""SQLite beside a worker: a request that cannot have the database's lock in time answers with
the JSON error model (503, try again), never a 500 page."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_a_database_still_locked_after_the_wait_is_a_503_in_the_error_model(monkeypatch):
    def locked(**kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr("bots.selectors.bot_list", locked)
    response = APIClient().get("/api/bots/")
    assert response.status_code == 503
    assert response.json()["error"] == "busy"
    assert response["Retry-After"] == "5"
