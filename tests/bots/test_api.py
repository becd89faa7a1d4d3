"""The bot authors' API: sign-up and tokens, bots, uploads with their checks, downloads."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from arena.bot_code import UploadLimits, read_upload
from bots.models import Bot, BotVersion
from bots.serializers import MAX_DESCRIPTION
from ladder.selectors import ladder_versions
from tests.conftest import PASSWORD

from .uploads import (
    CRASHING_BOT,
    GOOD_BOT,
    ILLEGAL_BOT,
    SILENT_BOT,
    SPLIT_BOT,
    SPLIT_STRATEGY,
    SYNTAX_ERROR,
    zip_bomb,
    zip_of,
    zip_with_symlink,
)


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def alices_bot(alice):
    return Bot.objects.create(owner=alice, game="snag", name="alices-bot")


def upload(client: APIClient, bot: Bot, name: str, data: bytes, runtime: str | None = None):
    file = SimpleUploadedFile(name, data, content_type="application/octet-stream")
    form = {"file": file} if runtime is None else {"file": file, "runtime": runtime}
    return client.post(f"/api/bots/{bot.pk}/versions/", form, format="multipart")


def upload_and_check(client: APIClient, bot: Bot, name: str, data: bytes, capture) -> dict:
    """Upload, let the check queued on commit run (eagerly), and read the version back."""
    with capture(execute=True):
        response = upload(client, bot, name, data)
    assert response.status_code == 202, response.json()
    assert response.json()["status"] == "pending"
    return client.get(f"/api/bots/{bot.pk}/versions/{response.json()['number']}/").json()


def stored_state(code_store) -> tuple:
    """Everything an upload could change: versions, bots, and the code store's files."""
    return (
        list(BotVersion.objects.values_list("id", "status", "content_hash")),
        list(Bot.objects.values_list("id", "name")),
        sorted(str(path.relative_to(code_store)) for path in code_store.rglob("*")),
    )


# Accounts --------------------------------------------------------------------------------


def test_signing_up_returns_a_token_that_authenticates(db):
    response = APIClient().post(
        "/api/accounts/", {"username": "carol", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 201
    token = response.json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    created = client.post("/api/bots/", {"game": "snag", "name": "carols"}, format="json")
    assert created.status_code == 201
    assert created.json()["owner"] == "carol"


def test_a_taken_username_and_a_weak_password_are_refused(alice):
    taken = APIClient().post(
        "/api/accounts/", {"username": "ALICE", "password": PASSWORD}, format="json"
    )
    assert taken.status_code == 400
    assert taken.json()["detail"]["username"] == ["this username is taken"]
    weak = APIClient().post(
        "/api/accounts/", {"username": "dave", "password": "123"}, format="json"
    )
    assert weak.status_code == 400 and "password" in weak.json()["detail"]
    assert User.objects.count() == 1


def test_sign_ups_are_rate_limited(db, monkeypatch):
    rates = {**ScopedRateThrottle.THROTTLE_RATES, "sign_up": "2/hour"}
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)
    codes = [
        APIClient()
        .post("/api/accounts/", {"username": f"user{n}", "password": PASSWORD}, format="json")
        .status_code
        for n in range(3)
    ]
    assert codes == [201, 201, 429]
    assert User.objects.count() == 2


def test_uploads_are_rate_limited_but_reading_versions_is_not(alices_bot, alice, monkeypatch):
    rates = {**ScopedRateThrottle.THROTTLE_RATES, "upload": "1/hour"}
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)
    client = client_for(alice)
    path = f"/api/bots/{alices_bot.pk}/versions/"
    assert client.post(path, {}, format="multipart").status_code == 400  # counted, refused
    assert client.post(path, {}, format="multipart").status_code == 429
    assert client.get(path).status_code == 200


def test_a_token_is_given_for_the_right_password_only(alice):
    good = APIClient().post(
        "/api/accounts/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )
    assert good.status_code == 200 and good.json()["token"] == Token.objects.get(user=alice).key
    bad = APIClient().post(
        "/api/accounts/token/", {"username": "alice", "password": "wrong"}, format="json"
    )
    assert bad.status_code == 401
    assert bad.json() == {"error": "authentication_failed", "detail": "wrong username or password"}


# Bots --------------------------------------------------------------------------------------


def test_creating_a_bot_needs_a_token(db):
    response = APIClient().post("/api/bots/", {"game": "snag", "name": "x"}, format="json")
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"


def test_a_bot_name_is_unique_per_game_and_the_game_must_exist(alices_bot, bob):
    client = client_for(bob)
    taken = client.post("/api/bots/", {"game": "snag", "name": "alices-bot"}, format="json")
    assert taken.status_code == 400 and "exists already" in taken.json()["detail"]["name"][0]
    unknown = client.post("/api/bots/", {"game": "chess", "name": "x"}, format="json")
    assert unknown.status_code == 400 and "chess" in unknown.json()["detail"]["game"][0]


def test_only_the_owner_changes_a_bot(alices_bot, bob, alice):
    path = f"/api/bots/{alices_bot.pk}/"
    refused = client_for(bob).patch(path, {"description": "mine now"}, format="json")
    assert refused.status_code == 403
    assert client_for(alice).patch(path, {"description": "v2"}, format="json").status_code == 200
    alices_bot.refresh_from_db()
    assert alices_bot.description == "v2"


def test_a_patch_changes_only_the_fields_it_gives(alices_bot, alice):
    client, path = client_for(alice), f"/api/bots/{alices_bot.pk}/"
    client.patch(path, {"description": "first"}, format="json")

    off = client.patch(path, {"on_ladder": False}, format="json")
    assert off.status_code == 200
    assert (off.json()["description"], off.json()["on_ladder"]) == ("first", False)

    described = client.patch(path, {"description": "second"}, format="json").json()
    assert (described["description"], described["on_ladder"]) == ("second", False)
    alices_bot.refresh_from_db()
    assert (alices_bot.description, alices_bot.on_ladder) == ("second", False)


def test_a_patch_naming_a_read_only_or_unknown_field_is_refused_and_changes_nothing(
    alices_bot, alice
):
    response = client_for(alice).patch(
        f"/api/bots/{alices_bot.pk}/",
        {"name": "renamed", "colour": "red", "description": "changed"},
        format="json",
    )

    assert response.status_code == 400
    detail = response.json()["detail"]
    assert set(detail) == {"name", "colour"}
    assert detail["name"][0].startswith("read-only: a bot's owner may change only description")
    assert detail["colour"][0].startswith("unknown field")
    alices_bot.refresh_from_db()
    assert (alices_bot.name, alices_bot.description) == ("alices-bot", "")


def test_a_bot_created_off_the_ladder_stays_off_it(alice):
    response = client_for(alice).post(
        "/api/bots/", {"game": "snag", "name": "test-bot", "on_ladder": False}, format="json"
    )

    assert response.status_code == 201, response.json()
    assert response.json()["on_ladder"] is False
    bot = Bot.objects.get(pk=response.json()["id"])
    BotVersion.objects.create(bot=bot, number=1, content_hash="f" * 64, status="ready")
    assert bot.on_ladder is False
    assert ladder_versions(game_id="snag") == []


def test_a_bot_created_without_on_ladder_joins_the_ladder(alice):
    response = client_for(alice).post(
        "/api/bots/", {"game": "snag", "name": "ladder-bot"}, format="json"
    )

    assert response.status_code == 201 and response.json()["on_ladder"] is True
    bot = Bot.objects.get(pk=response.json()["id"])
    version = BotVersion.objects.create(bot=bot, number=1, content_hash="f" * 64, status="ready")
    assert ladder_versions(game_id="snag") == [version]


def test_a_create_naming_a_read_only_or_unknown_field_is_refused_and_creates_nothing(alice):
    response = client_for(alice).post(
        "/api/bots/",
        {"game": "snag", "name": "x", "owner": "bob", "onladder": False},
        format="json",
    )

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid" and set(body["detail"]) == {"owner", "onladder"}
    assert body["detail"]["owner"][0].startswith("read-only: a new bot takes only game, name")
    assert body["detail"]["onladder"][0].startswith("unknown field")
    assert not Bot.objects.exists()


def test_a_description_past_the_cap_is_refused(alices_bot, alice):
    too_long = "x" * (MAX_DESCRIPTION + 1)
    response = client_for(alice).patch(
        f"/api/bots/{alices_bot.pk}/", {"description": too_long}, format="json"
    )
    assert response.status_code == 400 and "description" in response.json()["detail"]


def test_bots_are_listed_for_everyone(alices_bot):
    response = APIClient().get("/api/bots/?game=snag")
    assert [bot["name"] for bot in response.json()["results"]] == ["alices-bot"]


# Uploads -----------------------------------------------------------------------------------


@pytest.mark.sandbox
def test_a_good_py_becomes_ready_once_checked(
    sandbox, alices_bot, alice, code_store, django_capture_on_commit_callbacks
):
    body = upload_and_check(
        client_for(alice), alices_bot, "bot.py", GOOD_BOT, django_capture_on_commit_callbacks
    )
    assert (body["number"], body["size"], body["status"]) == (1, len(GOOD_BOT), "ready")
    assert body["status_reason"] == "" and "thinking" in body["check_log"]
    assert body["plays_series"] is False, "its ready does not say series"
    assert body["checked_at"] is not None
    assert (code_store / body["content_hash"] / "bot.py").read_bytes() == GOOD_BOT


@pytest.mark.sandbox
def test_a_good_zip_with_two_modules_becomes_ready(
    sandbox, alices_bot, alice, code_store, django_capture_on_commit_callbacks
):
    data = zip_of({"bot.py": SPLIT_BOT, "strategy.py": SPLIT_STRATEGY})
    body = upload_and_check(
        client_for(alice), alices_bot, "bot.zip", data, django_capture_on_commit_callbacks
    )
    assert body["status"] == "ready", body["status_reason"]


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "source, reason, words",
    [
        (CRASHING_BOT, "crash", "RuntimeError: my strategy is not written yet"),
        (SILENT_BOT, "start_failed", "did not reply"),
        (ILLEGAL_BOT, "illegal_action", "is not legal here"),
    ],
    ids=["crash", "silent", "illegal"],
)
def test_a_bot_failing_its_smoke_match_is_rejected_with_what_went_wrong(
    sandbox,
    alices_bot,
    alice,
    code_store,
    django_capture_on_commit_callbacks,
    settings,
    source,
    reason,
    words,
):
    settings.BAIZE_BOT_START_TIMEOUT = 0.5
    body = upload_and_check(
        client_for(alice), alices_bot, "bot.py", source, django_capture_on_commit_callbacks
    )
    assert body["status"] == "rejected"
    assert f"in seat 0, your bot forfeited ({reason})" in body["status_reason"]
    assert words in body["status_reason"]


def test_the_reason_of_a_rejection_is_only_for_the_owner(alices_bot, alice, bob):
    BotVersion.objects.create(
        bot=alices_bot, number=1, content_hash="f" * 64, status="rejected", status_reason="secret"
    )
    path = f"/api/bots/{alices_bot.pk}/versions/1/"
    assert "status_reason" not in client_for(bob).get(path).json()
    assert client_for(alice).get(path).json()["status_reason"] == "secret"


def test_versions_are_numbered_in_upload_order(
    sandbox, alices_bot, alice, code_store, django_capture_on_commit_callbacks
):
    client = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):
        first = upload(client, alices_bot, "bot.py", GOOD_BOT).json()
        second = upload(client, alices_bot, "bot.py", GOOD_BOT + b"# v2\n").json()
    assert (first["number"], second["number"]) == (1, 2)
    assert first["content_hash"] != second["content_hash"]


@pytest.mark.parametrize(
    "name, data, status, error, words",
    [
        ("bad.py", SYNTAX_ERROR, 400, "syntax_error", "bad.py line 3"),
        ("bot.py", b"#" * 2048, 413, "too_large", "at most 1024 are accepted"),
        ("bot.zip", zip_bomb(4096), 413, "zip_too_large", "unpacks to more than 2048"),
        ("bot.zip", zip_of({"bot.py": GOOD_BOT, "../../x.py": b""}), 400, "zip_traversal", "x.py"),
        ("bot.zip", zip_with_symlink("s", "/etc/passwd"), 400, "zip_link", "a link"),
        ("bot.zip", GOOD_BOT, 400, "not_a_zip", "not a zip archive"),
        # Named for no row but the prebuilt executable's, which takes any file: judged so.
        ("bot.exe", GOOD_BOT, 400, "not_an_executable", "not an x86-64 Linux executable"),
    ],
    ids=["syntax", "oversize", "bomb", "traversal", "symlink", "not-zip", "exe"],
)
def test_a_refused_upload_says_why_and_changes_nothing(
    alices_bot, alice, code_store, settings, name, data, status, error, words
):
    settings.BAIZE_UPLOAD_MAX_BYTES = 1024
    settings.BAIZE_UPLOAD_MAX_UNPACKED_BYTES = 2048
    BotVersion.objects.create(bot=alices_bot, number=1, content_hash="e" * 64, status="ready")
    before = stored_state(code_store)
    response = upload(client_for(alice), alices_bot, name, data)
    assert response.status_code == status
    body = response.json()
    assert body["error"] == error and words in body["detail"], body
    assert stored_state(code_store) == before


@pytest.mark.parametrize(
    "last, name, data, runtime, runtime_from",
    [
        (None, "bot.cpp", b"int main() {}\n", "cpp", "files"),
        ("pypy", "bot.py", GOOD_BOT, "pypy", "last_version"),
        ("cpp", "helpers.zip", zip_of({"a.cpp": b"", "b.hpp": b""}), "cpp", "last_version"),
        ("cpp", "bot.py", GOOD_BOT, "python", "files"),
    ],
    ids=["cpp-alone", "as-last", "zip-as-last", "other-than-last"],
)
def test_an_upload_without_a_runtime_takes_the_last_version_s_or_the_files_and_says_which(
    alices_bot, alice, code_store, last, name, data, runtime, runtime_from
):
    if last is not None:
        BotVersion.objects.create(bot=alices_bot, number=1, content_hash="e" * 64, runtime=last)

    response = upload(client_for(alice), alices_bot, name, data)

    body = response.json()
    assert response.status_code == 202, body
    assert (body["runtime"], body["runtime_from"]) == (runtime, runtime_from)


def test_a_zipped_folder_is_refused_with_the_advice_of_the_runtime_its_files_are_for(
    alices_bot, alice, code_store
):
    data = zip_of({"my_bot/main.rs": b"fn main() {}\n"})

    response = upload(client_for(alice), alices_bot, "bot.zip", data)

    assert response.json()["error"] == "no_entry_point"
    assert "found my_bot/main.rs: zip the folder's contents" in response.json()["detail"]
    assert "the rust runtime expects" in response.json()["detail"]


def test_an_upload_naming_its_runtime_says_it_was_given(alices_bot, alice, code_store):
    response = upload(client_for(alice), alices_bot, "bot.py", GOOD_BOT, runtime="pypy")
    assert (response.json()["runtime"], response.json()["runtime_from"]) == ("pypy", "given")


def test_an_upload_to_someone_elses_bot_is_forbidden(alices_bot, bob, code_store):
    before = stored_state(code_store)
    response = upload(client_for(bob), alices_bot, "bot.py", GOOD_BOT)
    assert response.status_code == 403
    assert response.json()["error"] == "permission_denied"
    assert "only its owner" in response.json()["detail"]
    assert stored_state(code_store) == before


def test_an_upload_without_a_token_is_refused(alices_bot, code_store):
    before = stored_state(code_store)
    response = upload(APIClient(), alices_bot, "bot.py", GOOD_BOT)
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"
    assert stored_state(code_store) == before


def test_the_same_code_twice_is_a_conflict(alices_bot, alice, code_store):
    client = client_for(alice)
    assert upload(client, alices_bot, "bot.py", GOOD_BOT).status_code == 202
    before = stored_state(code_store)
    again = upload(client, alices_bot, "bot.zip", zip_of({"bot.py": GOOD_BOT}))
    assert again.status_code == 409
    assert again.json() == {
        "error": "duplicate_version",
        "detail": "this code is already version 1 of snag/alices-bot",
    }
    assert stored_state(code_store) == before


def test_an_upload_without_a_file_says_which_field_to_use(alices_bot, alice):
    response = client_for(alice).post(
        f"/api/bots/{alices_bot.pk}/versions/", {}, format="multipart"
    )
    assert response.status_code == 400
    assert "'file'" in response.json()["detail"]["file"]


def test_the_sandbox_level_is_public_and_its_layers_are_for_staff(db, sandbox):
    public = APIClient().get("/api/sandbox/").json()
    assert public == {"level": "full", "safe": True, "reason": ""}
    staff = User.objects.create_user("root", password=PASSWORD, is_staff=True)
    assert client_for(staff).get("/api/sandbox/").json()["layers"]["seccomp"] == "ok"


def test_a_bots_latest_version_is_its_latest_ready_one(alices_bot):
    for number, status in ((1, "ready"), (2, "rejected"), (3, "pending")):
        BotVersion.objects.create(
            bot=alices_bot, number=number, content_hash=f"{number:064x}", status=status
        )

    body = client_for(None).get(f"/api/bots/{alices_bot.pk}/").json()

    assert body["latest_version"] == 1


# Downloads ----------------------------------------------------------------------------------


@pytest.fixture
def uploaded_zip(alices_bot, alice, code_store) -> tuple[bytes, dict]:
    """A two-module zip uploaded as version 1 of Alice's bot (its check not run)."""
    data = zip_of({"bot.py": SPLIT_BOT, "strategy.py": SPLIT_STRATEGY})
    response = upload(client_for(alice), alices_bot, "bot.zip", data)
    assert response.status_code == 202, response.json()
    return data, response.json()


def test_the_owner_downloads_a_version_s_files_as_a_zip(alices_bot, alice, uploaded_zip):
    _, version = uploaded_zip

    response = client_for(alice).get(f"/api/bots/{alices_bot.pk}/versions/1/code/")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert 'filename="snag-alices-bot-v1.zip"' in response["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    assert files == {"bot.py": SPLIT_BOT, "strategy.py": SPLIT_STRATEGY}
    again = read_upload("bot.zip", response.content, UploadLimits())
    assert again.content_hash == version["content_hash"]


def test_staff_download_anyone_s_uploaded_version(alices_bot, uploaded_zip):
    staff = User.objects.create_user("root", password=PASSWORD, is_staff=True)
    response = client_for(staff).get(f"/api/bots/{alices_bot.pk}/versions/1/code/")
    assert response.status_code == 200


def test_anyone_else_gets_the_404_of_a_version_that_does_not_exist(alices_bot, bob, uploaded_zip):
    path = f"/api/bots/{alices_bot.pk}/versions/{{number}}/code/"
    missing = client_for(bob).get(path.format(number=2))
    for client in (client_for(bob), client_for(None)):
        refused = client.get(path.format(number=1))
        assert refused.status_code == missing.status_code == 404
        assert refused.json()["error"] == missing.json()["error"] == "not_found"


def test_a_built_in_version_has_no_code_to_download(db):
    builtin = Bot.objects.create(game="snag", name="random")
    BotVersion.objects.create(
        bot=builtin, number=1, builtin="random", content_hash="0" * 64, status="ready"
    )
    staff = User.objects.create_user("root", password=PASSWORD, is_staff=True)

    response = client_for(staff).get(f"/api/bots/{builtin.pk}/versions/1/code/")

    assert response.status_code == 400
    assert "built in" in response.json()["detail"]["number"]


@pytest.mark.parametrize("given", [1.0, 1, 0, "true", "yes"])
def test_on_ladder_must_be_a_json_boolean(alice, given):
    response = client_for(alice).post(
        "/api/bots/", {"game": "snag", "name": "x", "on_ladder": given}, format="json"
    )

    assert response.status_code == 400
    assert "JSON boolean" in str(response.json()["detail"]["on_ladder"])
    assert not Bot.objects.exists()
