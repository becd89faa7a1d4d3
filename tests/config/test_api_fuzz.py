"""Schemathesis fuzzes every operation of the published schema: no input gets a 5xx.

Run in-process against the WSGI app, as an anonymous client, a bot author and an
organiser, on a database holding a bot, a tournament and a played match, so that the ids
the generator tries sometimes name real rows.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.contrib.auth.models import Permission, User
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token

from config.wsgi import application

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
