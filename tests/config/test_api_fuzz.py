"""Schemathesis fuzzes every operation of the published schema: no input gets a 5xx.

Run in-process against the WSGI app, as an anonymous client, a bot author and an
organiser, on a database holding a bot, a tournament and a played match, so that the ids
the generator tries sometimes name real rows. Bodies no generator writes (nested past the
stack, cut short, not UTF-8) are sent to every operation that takes a body.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.contrib.auth.models import Permission, User
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.models import Bot
from config.wsgi import application
from tournaments.models import Tournament

pytestmark = pytest.mark.slow

#: Examples per operation and identity: the whole run stays within a minute or so.
EXAMPLES = 12


@pytest.fixture
def identities(played_tournament) -> dict[str, dict[str, str]]:
    author = User.objects.create_user("fuzz-author", password="a long enough passphrase")
    organiser = User.objects.create_user("fuzz-organiser", password="a long enough passphrase")
    organiser.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    return {
        "anonymous": {},
        "author": {"Authorization": f"Token {Token.objects.create(user=author).key}"},
        "organiser": {"Authorization": f"Token {Token.objects.create(user=organiser).key}"},
    }


@pytest.fixture
def wsgi_in_the_test_transaction():
    """Calls straight into the WSGI app, as Django's test client does: the end of a
    request must not close the connection that holds the test's transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.parametrize("who", ["anonymous", "author", "organiser"])
def test_no_generated_request_gets_a_server_error(identities, wsgi_in_the_test_transaction, who):
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 20, "the whole published API is fuzzed"
    for operation in operations:
        _fuzz(operation, identities[who])


def _fuzz(operation, headers: dict[str, str]) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def no_server_error(case) -> None:
        response = case.call(headers=headers)
        assert response.status_code < 500, (
            f"{case.method} {case.formatted_path} query={case.query} body={case.body!r}"
            f" -> {response.status_code}: {response.text[:300]}"
        )

    no_server_error()


#: Bodies that cannot be read, by content type: each must be a 400 in the error shape.
UNREADABLE_BODIES = {
    "application/json": {
        "array nested 1,000 deep": b"[" * 1000 + b"]" * 1000,
        "object nested 1,000 deep": b'{"a":' * 1000 + b"1" + b"}" * 1000,
        "array nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
        "a field nested 100 deep": b'{"name": ' + b"[" * 100 + b"]" * 100 + b"}",
        "cut short": b'{"name": "x", "descr',
        "not UTF-8": b'{"name": "\xff\xfe"}',
    },
    "multipart/form-data; boundary=B": {
        "bad base64": b'--B\r\nContent-Disposition: form-data; name="file"; filename="bot.py"'
        b"\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!\r\n--B--\r\n",
    },
    "multipart/form-data": {"no boundary": b"--B\r\n\r\nx\r\n--B--\r\n"},
    "application/x-www-form-urlencoded": {
        "2,000 fields": b"&".join(b"f%d=1" % number for number in range(2000)),
    },
}


def test_a_body_that_cannot_be_read_is_a_400_on_every_operation_that_takes_one(
    client, played_tournament
):
    """As anonymous where the operation allows it (sign-up), else as a superuser, so that
    each request gets as far as reading its body."""
    schema = client.get("/api/schema/?format=json").json()
    superuser = User.objects.create_superuser("fuzz-admin", password="a long enough passphrase")
    Bot.objects.create(owner=superuser, game="snag", name="fuzz-bot")
    rows = {"bots": Bot.objects.first().pk, "tournaments": Tournament.objects.first().pk}
    before = _stored_counts()
    sent = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            accepted = operation.get("requestBody", {}).get("content", {})
            caller = APIClient()
            if {} not in operation["security"]:
                caller.force_authenticate(superuser)
            url = path.replace("{id}", str(rows.get(path.split("/")[2], 0)))
            for content_type, bodies in UNREADABLE_BODIES.items():
                if content_type.split(";")[0] not in accepted:
                    continue
                for name, body in bodies.items():
                    cache.clear()  # a throttled sign-up would be refused before its body is read
                    response = caller.generic(method.upper(), url, body, content_type)
                    where = f"{method.upper()} {url} {content_type} {name}"
                    assert response.status_code == 400, f"{where}: {response.content[:300]!r}"
                    assert response.json()["error"] == "parse_error", where
                    assert set(response.json()) == {"error", "detail"}, where
                    sent.add((method, path))
    assert ("post", "/api/accounts/") in sent, "anonymous sign-up is among them"
    assert ("post", "/api/bots/{id}/versions/") in sent, "and the upload"
    assert len(sent) >= 10
    assert _stored_counts() == before


def _stored_counts() -> tuple[int, int, int]:
    return User.objects.count(), Bot.objects.count(), Tournament.objects.count()


def test_the_schema_says_uploads_are_binary_errors_have_one_shape_and_who_may_call(client):
    schema = client.get("/api/schema/?format=json").json()
    paths = schema["paths"]

    upload = schema["components"]["schemas"]["VersionUploadInputRequest"]["properties"]["file"]
    assert upload["format"] == "binary"
    for operations in paths.values():
        for operation in operations.values():
            error = operation["responses"]["4XX"]["content"]["application/json"]["schema"]
            assert error == {"$ref": "#/components/schemas/Error"}
    assert {} in paths["/api/games/"]["get"]["security"], "anyone reads the games"
    assert {} in paths["/api/accounts/"]["post"]["security"], "anyone signs up"
    assert {} not in paths["/api/bots/"]["post"]["security"], "creating a bot needs a login"
    stderr = paths["/api/matches/{id}/seats/{seat}/stderr/"]["get"]
    assert {} not in stderr["security"], "a bot's stderr needs a login"


def test_the_schema_lists_filters_only_on_the_operations_that_take_them(client):
    paths = client.get("/api/schema/?format=json").json()["paths"]
    writes_with_query = {
        (method, path): [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
        for path, operations in paths.items()
        for method, operation in operations.items()
        if method in {"post", "put", "patch", "delete"}
    }
    assert {key: names for key, names in writes_with_query.items() if names} == {}
    listed = [p["name"] for p in paths["/api/bots/"]["get"]["parameters"]]
    assert {"game", "owner"} <= set(listed)
