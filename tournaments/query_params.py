"""The API's query parameters checked: a bad one is a 400 that names it."""

from __future__ import annotations

from rest_framework.request import Request

from errors import DomainError


def choice_param(request: Request, name: str, allowed) -> str | None:
    """A query parameter that must be one of ``allowed``; 400 naming it otherwise."""
    value = request.query_params.get(name)
    if value is not None and value not in allowed:
        raise DomainError(f"unknown {name} {value!r}; known: {sorted(allowed)}", field=name)
    return value


def integer_param(request: Request, name: str) -> int | None:
    """A query parameter that must be an integer; 400 naming it otherwise."""
    value = request.query_params.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise DomainError(f"must be an integer, got {value!r}", field=name) from None
