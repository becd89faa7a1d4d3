"""Request bounds applied to every API call: pages, NUL bytes, and how deep JSON nests.

Django and DRF leave these to the database or the interpreter, which answer with an error
the API would report as a server error: an offset beyond 64-bit integers, a NUL byte in a
query string or a JSON string (PostgreSQL stores neither), a JSON body nested deeper than
the stack.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.exceptions import ParseError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import JSONParser

from errors import DomainError

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
            raise DomainError(f"must be at most {MAX_OFFSET}", field="offset")
        return offset


class BoundedJSONParser(JSONParser):
    """JSON nested at most ``MAX_JSON_DEPTH`` levels whose strings (keys included) hold no
    NUL character. Any body that cannot be read so is a ``ParseError`` (a 400), never a 500:
    ``json`` raises ``RecursionError``, not ``ValueError``, on a body nested past the stack.
    """

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_TOO_DEEP) from None
        problem = _json_problem(data)
        if problem:
            raise ParseError(problem)
        return data


#: How deep a JSON body may nest. No input of the API goes past a few levels; the bound keeps
#: whatever walks a body (validation, storing a JSON field) far from the recursion limit.
MAX_JSON_DEPTH = 64
_TOO_DEEP = f"JSON parse error - the JSON is nested more than {MAX_JSON_DEPTH} levels deep"


def _json_problem(data: Any) -> str:
    """What makes parsed JSON unacceptable ("" if nothing); walked without recursion."""
    pending = [(data, 0)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            if "\0" in value:
                return "the JSON holds a NUL character (\\u0000), which no field accepts"
            continue
        if depth >= MAX_JSON_DEPTH and isinstance(value, (dict, list)):
            return _TOO_DEEP
        if isinstance(value, dict):
            pending.extend((key, depth) for key in value)
            pending.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            pending.extend((item, depth + 1) for item in value)
    return ""


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
