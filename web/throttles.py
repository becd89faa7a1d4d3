"""The API's rate limits, counted for the pages' forms too.

Signing in checks a password as the API's token exchange does, and signing up and uploading
are the API's own actions: a page that did them unthrottled would be the way around the
API's limits. So a page's form counts against the same scope (``sign_up``, ``token``,
``upload``: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``), with the same counter per client
in the shared cache, through DRF's own throttle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.http import HttpRequest
from rest_framework.throttling import ScopedRateThrottle


@dataclass(frozen=True)
class _ScopedForm:
    """What DRF's scoped throttle reads of a view: the scope it counts under."""

    throttle_scope: str


def throttle_wait(request: HttpRequest, *, scope: str) -> int | None:
    """Count this request under ``scope``: None while within the rate, else the whole
    seconds to wait before the next is let through."""
    throttle = ScopedRateThrottle()
    if throttle.allow_request(request, _ScopedForm(scope)):
        return None
    return math.ceil(throttle.wait() or 1)


def wait_words(seconds: int) -> str:
    """``seconds`` as a page says it: "in 40 seconds", "in 12 minutes"."""
    if seconds < 90:
        return f"in {seconds} seconds"
    return f"in {math.ceil(seconds / 60)} minutes"
