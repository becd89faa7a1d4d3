"""Domain refusals: exceptions with a code and an HTTP status, raised by any service.

Pure Python, in the lowest layer, so every app can raise them; the API renders them in
one place (``config.api_errors``) as ``{"error": code, "detail": message}``.
"""

from __future__ import annotations


class DomainError(Exception):
    """A request the domain refuses; ``field`` names the input at fault, if one is."""

    code = "invalid"
    status = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotAllowed(DomainError):
    code = "not_allowed"
    status = 403


class NotFound(DomainError):
    code = "not_found"
    status = 404


class Conflict(DomainError):
    """The state of what is stored does not allow it now (409)."""

    code = "conflict"
    status = 409
