"""Crafted requests that once got a 500 now get a 4xx in the ``{"error", "detail"}`` shape,
and change nothing that is stored."""

from __future__ import annotations

import io
import zipfile
from unittest import mock

import pytest
from django.contrib.auth.models import Permission, User
from django.db import IntegrityError
from rest_framework.test import APIClient

from arena.bot_code import UploadRejected
from bots.models import Bot, BotVersion, CodeBlob
from config.requests import MAX_JSON_DEPTH

from .test_api import stored_state, upload
from .uploads import GOOD_BOT, zip_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def author():
    return User.objects.create_user("author", password="a long enough passphrase")


@pytest.fixture
def bot(author):
    return Bot.objects.create(owner=author, game="snag", name="crafted")


def client_for(user: User | None = None) -> APIClient:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


def assert_refused(response, status: int = 400) -> dict:
    assert response.status_code == status, response.content[:500]
    body = response.json()
    assert set(body) == {"error", "detail"}, body
    return body


def zip_with_raw_name(name: bytes, utf8_flag: bool) -> bytes:
    """A zip whose one entry's name is ``name`` as raw bytes, UTF-8 flagged or not."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", GOOD_BOT)
        archive.writestr("PLACEHOLDER.py", b"x = 1\n")
    data = buffer.getvalue().replace(b"PLACEHOLDER.py", name.ljust(14, b"_")[:14])
    if utf8_flag:
        # General purpose flag bit 11 of the second entry, in its local and central headers.
        data = data.replace(b"\x14\x00\x00\x00\x00\x00", b"\x14\x00\x00\x08\x00\x00")
    return data


@pytest.mark.parametrize(
    ("files", "code"),
    [
        ({"bot.py": GOOD_BOT, "x": b"", "x/y.py": b"y = 1\n"}, "zip_path_conflict"),
        ({"bot.py": GOOD_BOT, "bot.py/z.py": b"z = 1\n"}, "zip_path_conflict"),
        ({"bot.py": GOOD_BOT, "a" * 300 + ".py": b"a = 1\n"}, "zip_path_too_long"),
        ({"bot.py": GOOD_BOT, "d/" * 2100 + "deep.py": b"d = 1\n"}, "zip_path_too_long"),
    ],
    ids=["file-beside-its-folder", "bot.py-as-a-folder", "300-character-name", "2100-deep"],
)
def test_a_zip_whose_paths_cannot_be_stored_is_a_400(bot, author, code_store, files, code):
    before = stored_state(code_store)

    response = upload(client_for(author), bot, "bot.zip", zip_of(files))

    assert assert_refused(response)["error"] == code
    assert stored_state(code_store) == before


def test_a_zip_whose_name_is_flagged_utf8_but_is_not_is_a_400(bot, author, code_store):
    before = stored_state(code_store)
    data = zip_with_raw_name(b"\xff\xfe.py", utf8_flag=True)

    response = upload(client_for(author), bot, "bot.zip", data)

    assert assert_refused(response)["error"] == "not_a_zip"
    assert stored_state(code_store) == before


def test_a_swiss_tournament_of_a_million_rounds_is_a_400():
    organiser = User.objects.create_user("organiser")
    organiser.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    body = {"name": "long", "game": "snag", "format": "swiss", "rounds": 10**6}

    response = client_for(organiser).post("/api/tournaments/", body, format="json")

    assert "rounds" in str(assert_refused(response)["detail"])


@pytest.mark.parametrize(
    "path", ["/api/bots/?", "/api/tournaments/?", "/api/ratings/?game=snag&", "events"]
)
@pytest.mark.parametrize("parameter", ["limit", "offset"])
def test_a_page_beyond_64_bit_integers_is_bounded_or_a_400(path, parameter):
    from matches.services import match_create

    match = match_create(game_id="snag", seed=1)
    if path == "events":
        path = f"/api/matches/{match.pk}/events/?"
    response = client_for().get(f"{path}{parameter}={2**64}")

    if parameter == "offset":
        assert_refused(response)
    else:
        assert response.status_code == 200, response.content[:300]


def test_a_nul_byte_in_a_query_is_a_400_naming_it():
    response = client_for().get("/api/bots/?owner=al%00ice")

    assert assert_refused(response)["detail"] == {"owner": "must not hold a NUL character"}


def test_a_nul_character_in_json_is_a_400(bot, author):
    response = client_for(author).patch(
        f"/api/bots/{bot.pk}/", {"description": "a\u0000b"}, format="json"
    )

    assert_refused(response)
    assert Bot.objects.get(pk=bot.pk).description == ""


def test_an_over_long_description_is_a_field_error(bot, author):
    response = client_for(author).patch(
        f"/api/bots/{bot.pk}/", {"description": "x" * 5000}, format="json"
    )

    assert "description" in assert_refused(response)["detail"]


def test_an_identical_upload_that_loses_the_race_is_a_409_and_leaves_nothing(
    bot, author, code_store
):
    before = stored_state(code_store)
    checks = []

    def duplicate_seen_only_after_the_race(bot, code, runtime):
        # The first check passes (the other upload is not committed yet), the second not.
        checks.append(code)
        if len(checks) > 1:
            raise UploadRejected("duplicate_version", "this code is already a version", status=409)

    with (
        mock.patch("bots.services.upload._refuse_duplicate", duplicate_seen_only_after_the_race),
        mock.patch("bots.services.upload.BotVersion.objects.create", side_effect=IntegrityError),
    ):
        response = upload(client_for(author), bot, "bot.py", GOOD_BOT)

    assert assert_refused(response, 409)["error"] == "duplicate_version"
    assert stored_state(code_store) == before
    assert not BotVersion.objects.filter(bot=bot).exists()


def test_a_sign_up_that_loses_the_race_for_its_name_is_a_400(db):
    with mock.patch("bots.services.accounts.User.objects.filter") as lookup:
        lookup.return_value.exists.return_value = False  # the other sign-up is not visible yet
        User.objects.create_user("racer")
        body = {"username": "racer", "password": "a long enough passphrase"}
        response = client_for().post("/api/accounts/", body, format="json")

    assert assert_refused(response)["detail"] == {"username": ["this username is taken"]}
    assert User.objects.filter(username="racer").count() == 1


def test_an_anonymous_sign_up_nested_1000_deep_is_a_400_and_signs_no_one_up(db):
    body = b'{"username": ' + b"[" * 1000 + b"]" * 1000 + b"}"

    response = client_for().post("/api/accounts/", body, content_type="application/json")

    refusal = assert_refused(response)
    assert refusal["error"] == "parse_error" and f"{MAX_JSON_DEPTH} levels" in refusal["detail"]
    assert not User.objects.exists()


@pytest.mark.parametrize(("depth", "error"), [(MAX_JSON_DEPTH, "invalid"), (100, "parse_error")])
def test_json_is_read_up_to_the_depth_bound_and_refused_past_it(bot, author, depth, error):
    """A list ``depth`` levels deep under the top-level object: within the bound the field
    itself refuses it; past the bound the body is not read at all."""
    nested = "[" * (depth - 1) + "]" * (depth - 1)

    response = client_for(author).patch(
        f"/api/bots/{bot.pk}/", f'{{"description": {nested}}}', content_type="application/json"
    )

    assert assert_refused(response)["error"] == error


def test_a_lone_surrogate_in_json_is_a_400(bot, author):
    """JSON's ``"\\udc80"`` is half a UTF-16 pair, which no database column stores as text."""
    body = b'{"description": "a\\udc80b"}'
    response = client_for(author).generic(
        "PATCH", f"/api/bots/{bot.pk}/", body, content_type="application/json"
    )

    assert "description" in assert_refused(response)["detail"]
    assert Bot.objects.get(pk=bot.pk).description == ""


@pytest.mark.parametrize(
    ("disposition", "stored_as"),
    [
        (b'filename="a\x00b.cpp"', "ab.cpp"),
        (b"filename*=UTF-8''x%00.cpp", "x.cpp"),
        (b"filename*=UTF-8''a%ED%B2%80.cpp", "a\ufffd\ufffd\ufffd.cpp"),
    ],
    ids=["nul", "encoded-nul", "encoded-surrogate"],
)
def test_an_uploaded_files_name_reaches_the_code_as_text_without_nul_or_surrogates(
    disposition, stored_as, bot, author, code_store, monkeypatch
):
    """A runtime that keeps the file's own name (C++) stores what the multipart parser gave:
    NUL dropped, bytes that are not UTF-8 as U+FFFD (Django's parser, for every upload)."""
    monkeypatch.setattr("bots.services.upload._enqueue_check", lambda version_id: None)
    body = (
        b'--B\r\nContent-Disposition: form-data; name="runtime"\r\n\r\ncpp\r\n'
        b'--B\r\nContent-Disposition: form-data; name="file"; ' + disposition + b"\r\n"
        b"Content-Type: application/octet-stream\r\n\r\nint main() {}\n\r\n--B--\r\n"
    )
    response = client_for(author).generic(
        "POST",
        f"/api/bots/{bot.pk}/versions/",
        body,
        content_type="multipart/form-data; boundary=B",
    )

    assert response.status_code == 202, response.content[:500]
    version = BotVersion.objects.get(bot=bot)
    stored = zipfile.ZipFile(io.BytesIO(bytes(CodeBlob.objects.get(pk=version.content_hash).data)))
    assert stored.namelist() == [stored_as]
