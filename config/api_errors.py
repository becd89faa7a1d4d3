"""One place that turns errors into API responses: ``{"error": code, "detail": message}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ObjectDoesNotExist):
        exc = Http404(str(exc))
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        detail = detail["detail"]
    code = getattr(exc, "default_code", None) or status.HTTP_400_BAD_REQUEST
    response.data = {"error": str(code), "detail": detail}
    return response
