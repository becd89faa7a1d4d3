"""One place that turns errors into API responses: ``{"error": code, "detail": message}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import (
    ObjectDoesNotExist,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import OperationalError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from errors import DomainError

_BODY_OVER_DJANGO_LIMITS = (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent)


def _database_busy(exc: OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return Response({"error": exc.code, "detail": exc.detail}, status=exc.status)
    if isinstance(exc, OperationalError) and _database_busy(exc):
        # SQLite beside a worker, still locked after its timeout: try again, nothing changed.
        detail = f"the database is busy, try again in a moment ({exc})"
        return Response(
            {"error": "busy", "detail": detail}, status=503, headers={"Retry-After": "5"}
        )
    if isinstance(exc, (Http404, ObjectDoesNotExist)):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    elif isinstance(exc, _BODY_OVER_DJANGO_LIMITS):
        # Raised while Django parses a form body: a body that cannot be read, like bad JSON.
        exc = exceptions.ParseError(str(exc))
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        detail = detail["detail"]
    code = exc.default_code if isinstance(exc, exceptions.APIException) else "error"
    response.data = {"error": code, "detail": detail}
    return response
