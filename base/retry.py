"""How a task retries work it could not do yet: the one backoff every task uses."""

from __future__ import annotations

from typing import Any

#: 5 s, doubling up to 5 minutes: about an hour over 15 tries.
BACKOFF: dict[str, Any] = {"retry_backoff": 5, "retry_backoff_max": 300, "max_retries": 15}


def retrying(*errors: type[BaseException]) -> dict[str, Any]:
    """The options of a Celery task that retries on ``errors`` with the one backoff."""
    return {"autoretry_for": errors, **BACKOFF}
