"""What every page needs to know about the server itself."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest


def match_play(request: HttpRequest) -> dict[str, Any]:
    """``plays_nothing``: no broker is configured, so no worker or beat runs beside this
    server and the ladder, challenges, version tests and scheduled tournaments stand still
    (tasks run in-process only when a request or a command sends them)."""
    return {"plays_nothing": settings.CELERY_TASK_ALWAYS_EAGER}
