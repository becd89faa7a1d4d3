"""Request bounds applied to every API call: pages, NUL bytes, and JSON bodies.

Django and DRF leave these to the database, which answers with an error the API would
report as a server error: an offset beyond 64-bit integers, a NUL byte in a query string or
a JSON string (PostgreSQL stores neither).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import JSONParser

#: The largest page and the furthest offset any list serves.
MAX_PAGE_SIZE = 1000
MAX_OFFSET = 1_000_000_000


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """``limit`` (default 50) is cut to ``MAX_PAGE_SIZE``; an ``offset`` past
    ``MAX_OFFSET`` is a 400 naming it."""

    max_limit = MAX_PAGE_SIZE

    def get_offset(self, request: Any) -> int:
        offset = super().get_offset(request)
        if offset > MAX_OFFSET:
            raise ValidationError({"offset": f"must be at most {MAX_OFFSET}"})
        return offset


class NulFreeJSONParser(JSONParser):
    """JSON whose strings (keys included) hold no NUL character."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        if _holds_nul(data):
            raise ParseError("the JSON holds a NUL character (\\u0000), which no field accepts")
        return data


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\0" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    return False


class RefuseNulInQuery:
    """A NUL byte in a query parameter is a 400, before any view passes it to a query."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for name, values in request.GET.lists():
            if "\0" in name or any("\0" in value for value in values):
                detail = {name.replace("\0", "\\0"): "must not hold a NUL character"}
                return JsonResponse({"error": "invalid", "detail": detail}, status=400)
        return self.get_response(request)
