"""Uploaded code travels through the shared store: a worker with an empty local cache fetches
it by hash, checks the hash, keeps a bounded cache, and says clearly when no store has it."""

from __future__ import annotations

import io
import os
import time
import uuid
import zipfile

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from arena.bot_code import BotCode, store_code, zip_code
from bots.models import Bot, BotVersion, CodeBlob
from bots.services.bots import builtin_bots_sync
from bots.services.check import bot_version_check
from bots.services.code_cache import (
    CACHE_KEEP_SECONDS,
    CodeUnavailable,
    cache_evict,
    cached_code_dir,
    code_publish,
)
from bots.services.upload import bot_version_upload
from matches.models import Match
from matches.play import MatchLimits, match_play
from matches.selectors import match_event_count
from matches.services import match_create, match_seats_create

from .conftest import stray_sandbox_processes
from .uploads import GOOD_BOT, SPLIT_BOT, SPLIT_STRATEGY


def empty_cache(settings):
    """Point this process's cache at a fresh empty folder, as on another worker host."""
    cache = settings.VAR_DIR / "code-stores" / uuid.uuid4().hex
    cache.mkdir(parents=True)
    cache.chmod(0o755)
    settings.BAIZE_BOT_CODE_DIR = cache
    return cache


@pytest.fixture
def alice(db):
    return User.objects.create_user("alice", password="x")


@pytest.fixture
def uploaded(alice, code_store, sandbox, django_capture_on_commit_callbacks):
    """A zip upload (two files), stored and checked by the instance that took it."""
    bot = Bot.objects.create(owner=alice, game="snag", name="split")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", SPLIT_BOT)
        archive.writestr("strategy.py", SPLIT_STRATEGY)
    with django_capture_on_commit_callbacks(execute=True):
        version = bot_version_upload(bot=bot, filename="split.zip", data=buffer.getvalue())
    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY, version.status_reason
    return version


def play_against_random(version: BotVersion) -> Match:
    random_version = builtin_bots_sync(game_id="snag")[0]
    match = match_create(game_id="snag", seed=7, options={"target": 5})
    match_seats_create(match=match, versions=[version, random_version])
    match_play(match_id=match.pk, limits=MatchLimits(time_bank_seconds=2.0))
    return Match.objects.get(pk=match.pk)


@pytest.mark.sandbox
def test_a_worker_with_an_empty_cache_plays_an_upload_stored_by_another_instance(
    uploaded, settings
):
    web_cache = settings.BAIZE_BOT_CODE_DIR
    worker_cache = empty_cache(settings)
    assert not (worker_cache / uploaded.content_hash).exists()

    match = play_against_random(uploaded)

    assert match.status == Match.Status.FINISHED
    assert match.result_reason == "played"
    assert stray_sandbox_processes() == []
    fetched = worker_cache / uploaded.content_hash
    assert sorted(p.name for p in fetched.iterdir()) == ["bot.py", "strategy.py"]
    assert (fetched / "strategy.py").read_bytes() == SPLIT_STRATEGY
    assert (web_cache / uploaded.content_hash / "bot.py").read_bytes() == SPLIT_BOT


@pytest.mark.sandbox
def test_a_worker_with_an_empty_cache_checks_an_upload_taken_by_another_instance(
    uploaded, settings
):
    BotVersion.objects.filter(pk=uploaded.pk).update(status="pending", status_reason="")
    empty_cache(settings)
    assert bot_version_check(version_id=uploaded.pk).status == "ready"


def test_stored_code_that_does_not_match_its_hash_is_never_used(alice, code_store, settings):
    code = BotCode({"bot.py": GOOD_BOT})
    code_publish(code)
    CodeBlob.objects.filter(pk=code.content_hash).update(
        data=zip_code(BotCode({"bot.py": b"print('not the uploaded bot')\n"}))
    )
    cache = empty_cache(settings)

    with pytest.raises(CodeUnavailable, match="holds other code"):
        cached_code_dir(code.content_hash)
    assert list(cache.iterdir()) == []


@pytest.mark.sandbox
def test_a_match_whose_code_no_store_has_stays_pending_and_plays_once_it_is_back(
    uploaded, settings
):
    data = bytes(CodeBlob.objects.get(pk=uploaded.content_hash).data)
    CodeBlob.objects.filter(pk=uploaded.content_hash).delete()
    empty_cache(settings)
    random_version = builtin_bots_sync(game_id="snag")[0]
    match = match_create(game_id="snag", seed=7, options={"target": 5})
    match_seats_create(match=match, versions=[uploaded, random_version])

    with pytest.raises(CodeUnavailable, match=f"code {uploaded.content_hash} is not in"):
        match_play(match_id=match.pk)
    assert Match.objects.get(pk=match.pk).status == Match.Status.PENDING
    assert match_event_count(match_id=match.pk) == 0

    CodeBlob.objects.create(content_hash=uploaded.content_hash, data=data)
    assert match_play(match_id=match.pk, limits=MatchLimits(time_bank_seconds=2.0)) is not None
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED


def test_a_check_whose_code_no_store_has_waits_and_says_why(alice, code_store, settings):
    bot = Bot.objects.create(owner=alice, game="snag", name="lost")
    code = BotCode({"bot.py": GOOD_BOT})
    version = BotVersion.objects.create(bot=bot, number=1, content_hash=code.content_hash)
    with pytest.raises(CodeUnavailable):
        bot_version_check(version_id=version.pk)
    version.refresh_from_db()
    assert version.status == "pending"
    assert version.status_reason.startswith(
        f"waiting for its code or runtime: code {code.content_hash}"
    )


def test_code_can_live_in_a_storage_of_djangos_storage_api(alice, code_store, settings, tmp_path):
    settings.BAIZE_CODE_STORAGE = "django.core.files.storage.FileSystemStorage"
    settings.STORAGES = {
        **settings.STORAGES,
        "bot_code": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "bucket")},
        },
    }
    code = BotCode({"bot.py": GOOD_BOT})
    code_publish(code)
    assert not CodeBlob.objects.exists()
    assert (tmp_path / "bucket" / "bot-code" / f"{code.content_hash}.zip").is_file()

    empty_cache(settings)
    assert (cached_code_dir(code.content_hash) / "bot.py").read_bytes() == GOOD_BOT


def test_the_cache_evicts_the_least_recently_used_code_past_its_bound(db, settings):
    cache = empty_cache(settings)
    settings.BAIZE_CODE_CACHE_MB = 0  # every folder is over the bound
    long_ago = time.time() - CACHE_KEEP_SECONDS - 60
    oldest, older, recent = (
        store_code(BotCode({"bot.py": f"# {n}\n".encode()}), cache) for n in range(3)
    )
    os.utime(oldest, (long_ago - 10, long_ago - 10))
    os.utime(older, (long_ago, long_ago))

    removed = cache_evict(keep=None)

    assert removed == [oldest, older]
    assert sorted(cache.iterdir()) == [recent]  # used lately: a match may still read it


def test_code_stored_on_disk_before_is_imported_into_the_shared_store(alice, code_store):
    bot = Bot.objects.create(owner=alice, game="snag", name="old")
    on_disk = BotCode({"bot.py": GOOD_BOT})
    store_code(on_disk, code_store)
    lost = BotCode({"bot.py": SPLIT_BOT})
    BotVersion.objects.create(bot=bot, number=1, content_hash=on_disk.content_hash)
    BotVersion.objects.create(bot=bot, number=2, content_hash=lost.content_hash)
    out = io.StringIO()

    call_command("code_store_import", "--from", str(code_store), stdout=out)

    assert list(CodeBlob.objects.values_list("content_hash", flat=True)) == [on_disk.content_hash]
    assert out.getvalue().splitlines() == [
        "imported 1 of 2 uploaded versions' code",
        f"not in {code_store}: {lost.content_hash}",
    ]


def test_its_owner_downloads_code_another_instance_stored(alice, code_store, settings):
    from rest_framework.test import APIClient

    bot = Bot.objects.create(owner=alice, game="snag", name="shared")
    code = BotCode({"bot.py": GOOD_BOT})
    code_publish(code)
    BotVersion.objects.create(bot=bot, number=1, content_hash=code.content_hash)
    empty_cache(settings)
    owner = APIClient()
    owner.force_authenticate(alice)

    response = owner.get(f"/api/bots/{bot.pk}/versions/1/code/")

    assert response.status_code == 200
    assert zipfile.ZipFile(io.BytesIO(response.content)).read("bot.py") == GOOD_BOT
    CodeBlob.objects.all().delete()
    empty_cache(settings)
    missing = owner.get(f"/api/bots/{bot.pk}/versions/1/code/")
    assert missing.status_code == 404
    assert "is not in the database" in missing.json()["detail"]
