"""The real-worker fixtures of the tournament tests, for the match tests that need them."""

from tests.tournaments.conftest import celery_workers, committed_db  # noqa: F401
