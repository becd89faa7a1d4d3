"""The real workers of the services tests, as the tournaments' tests start them."""

from tests.tournaments.conftest import celery_workers, committed_db  # noqa: F401
