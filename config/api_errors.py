"""One place that turns errors into API responses: ``{"error": code, "detail": message}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.errors import DomainError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        detail = {exc.field: exc.message} if exc.field else exc.message
        return Response({"error": exc.code, "detail": detail}, status=exc.status)
    if isinstance(exc, (Http404, ObjectDoesNotExist)):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        detail = detail["detail"]
    code = exc.default_code if isinstance(exc, exceptions.APIException) else "error"
    response.data = {"error": code, "detail": detail}
    return response
