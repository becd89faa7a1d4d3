"""Post-processing of the published OpenAPI schema, so that it says what the API does.

drf-spectacular describes each view; what holds for every operation is added here once:
the error responses (``config.api_errors`` renders them all as ``{"error", "detail"}``)
and which operations an anonymous client may call.
"""

from __future__ import annotations

from typing import Any

ERROR = {
    "type": "object",
    "properties": {
        "error": {"type": "string", "description": "A code for programs: invalid, conflict, ..."},
        "detail": {
            "description": "What is wrong, for people: a message, or messages by field.",
            "oneOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}],
        },
    },
    "required": ["error", "detail"],
}
#: Operations open to anonymous clients besides every GET (sign up, get a token).
ANONYMOUS = {("/api/accounts/", "post"), ("/api/accounts/token/", "post")}
#: GET operations that need a login.
LOGIN_ONLY_READS = ("/stderr/",)


def add_errors_and_anonymous_access(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    error = {"$ref": "#/components/schemas/Error"}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            responses.setdefault(
                "4XX",
                {
                    "description": "Refused: bad input (400), login needed (401), not allowed"
                    " (403), not found (404), conflict with what is stored (409), too large"
                    " (413), throttled (429).",
                    "content": {"application/json": {"schema": error}},
                },
            )
            if "security" in operation:
                operation["security"] = _security(path, method, operation["security"])
    return result


def _security(path: str, method: str, schemes: list[dict]) -> list[dict]:
    """The login schemes, and ``{}`` (no login) exactly where an anonymous call is served.

    Most views let DRF through and check the login themselves, so spectacular would mark
    them all open; what they do is: reads are open (but stderr), writes need a login (but
    signing up and asking for a token)."""
    logins = [scheme for scheme in schemes if scheme]
    reads = method == "get" and not path.endswith(LOGIN_ONLY_READS)
    return [*logins, {}] if reads or (path, method) in ANONYMOUS else logins
