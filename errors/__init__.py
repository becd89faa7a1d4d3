"""The project's refusals: exceptions with a code and an HTTP status, raised by any layer.

Every request Baize refuses (bad input, a missing or forbidden object, a refused upload)
is a ``DomainError``. Pure Python, beneath every app, so any layer may raise one; the API
renders them in one place (``config.api_errors``) as ``{"error": code, "detail": detail}``.
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

    @property
    def detail(self) -> str | dict[str, str]:
        """What the response's ``detail`` says: the message, under its field if it has one."""
        return {self.field: self.message} if self.field else self.message


class NotAllowed(DomainError):
    code = "not_allowed"
    status = 403


class NotFound(DomainError):
    code = "not_found"
    status = 404


class InvalidFields(DomainError):
    """Input refused field by field, each field with its messages: the shape a serializer's
    errors have, so an endpoint answers alike whichever of the two found the problem."""

    def __init__(self, messages: dict[str, str | list[str]]) -> None:
        self.messages = {
            name: [text] if isinstance(text, str) else list(text) for name, text in messages.items()
        }
        summary = "; ".join(f"{name}: {' '.join(texts)}" for name, texts in self.messages.items())
        super().__init__(summary)

    @property
    def detail(self) -> dict[str, list[str]]:
        return self.messages
