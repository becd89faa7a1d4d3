"""Bots in every runtime of the table: each starter kit uploaded through the API is built in
the sandbox, checked against a built-in (Python) bot, and plays matches that record its
runtime and toolchain; builds that fail, never end or fill their disk are rejected within
their limits, and nothing else is harmed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.utils.html import escape

from arena.bot_code import BotCode, read_code_folder, zip_code
from arena.runtimes import RUNTIMES, STARTERS_DIR, RuntimeStatus
from bots.models import Bot, BotVersion
from bots.services.bots import builtin_bots_sync
from bots.services.code_cache import CodeUnavailable
from matches.models import Match
from matches.play import MatchLimits, match_play
from matches.selectors import match_event_count, match_event_records
from matches.services import match_create, match_seats_create
from tests.bots.conftest import stray_sandbox_processes
from tests.bots.test_api import client_for, upload
from tests.bots.uploads import FIRST_LEGAL_CPP, is_static_elf

pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("runtimes")]

COMPILE_ERROR = b"""#include <cstdio>
int main() {
    std::puts("hello");
    return undeclared_name;
}
"""
#: Each copy includes itself twice: a tree of includes 200 deep that the preprocessor walks
#: for ever (each path to the depth limit is an error, and it goes on).
NEVER_ENDS = b"#include __FILE__\n#include __FILE__\nint main() { return 0; }\n"
#: An object file of a gibibyte: more than the build's files and tmpfs may hold.
FILLS_ITS_DISK = b'asm(".fill 0x40000000, 1, 0");\nint main() { return 0; }\n'


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    """Runs the check queued on commit, in the test."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def bot(alice):
    return Bot.objects.create(owner=alice, game="snag", name="polyglot")


def kit_zip(runtime: str, tmp_path: Path) -> bytes:
    """The runtime's starter kit, zipped as its author would upload it."""
    if runtime == "executable":
        binary = tmp_path / "bot"
        build = ["g++", "-std=c++20", "-O2", "-static", "-o", str(binary)]
        subprocess.run([*build, str(STARTERS_DIR / "cpp" / "bot.cpp")], check=True, timeout=300)
        return zip_code(BotCode({"bot": binary.read_bytes()}, frozenset({"bot"})))
    return zip_code(read_code_folder(STARTERS_DIR / runtime))


def upload_kit(client, bot: Bot, runtime: str, data: bytes, capture) -> dict:
    with capture(execute=True):
        response = upload(client, bot, "kit.zip", data, runtime=runtime)
    assert response.status_code == 202, response.json()
    return client.get(f"/api/bots/{bot.pk}/versions/{response.json()['number']}/").json()


def test_the_runtimes_api_lists_every_row_available_here_with_its_toolchain(alice, sandbox):
    rows = client_for(None).get("/api/runtimes/").json()
    assert [row["name"] for row in rows] == list(RUNTIMES)
    unavailable = {row["name"]: row["missing"] for row in rows if not row["available"]}
    assert unavailable == {}, "run make runtime-deps"
    by_name = {row["name"]: row for row in rows}
    assert by_name["cpp"]["toolchain"][0].startswith("g++ (Debian")
    assert by_name["java"]["address_space_limit"] is False
    assert (
        by_name["executable"]["upload_limits"]["max_bytes"]
        > by_name["python"]["upload_limits"]["max_bytes"]
    )


@pytest.mark.parametrize("runtime", list(RUNTIMES))
def test_each_starter_kit_builds_is_ready_and_plays_recording_its_runtime(
    runtime, bot, alice, sandbox, code_store, capture, tmp_path
):
    body = upload_kit(client_for(alice), bot, runtime, kit_zip(runtime, tmp_path), capture)

    assert body["status"] == "ready", (body["status_reason"], body["build_log"])
    assert body["runtime"] == runtime
    assert body["plays_series"] is True
    version = BotVersion.objects.get(bot=bot, number=body["number"])
    assert bool(version.build_hash) == RUNTIMES[runtime].built
    if runtime != "executable":
        assert body["toolchain"], "the toolchain is recorded with the version"
    opponent = builtin_bots_sync(game_id="snag")[0]
    match = match_create(game_id="snag", seed=11, options={})
    match_seats_create(match=match, versions=[version, opponent])
    result = match_play(match_id=match.pk, limits=MatchLimits(time_bank_seconds=2.0))
    assert result is not None and result.forfeit is None
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    started = match_event_records(match=match)[0].payload
    assert started["players"][0]["runtime"] == runtime
    assert started["players"][0]["toolchain"] == version.toolchain.splitlines() or not (
        RUNTIMES[runtime].built
    )
    shown = client_for(None).get(f"/api/matches/{match.pk}/").json()
    assert shown["seats"][0]["runtime"] == runtime
    page = client_for(None).get(f"/matches/{match.pk}/").content.decode()
    assert f'<strong title="{escape(version.toolchain)}">{runtime}</strong>' in page
    assert stray_sandbox_processes() == []


def test_the_same_sources_and_toolchain_are_built_once(
    bot, alice, sandbox, code_store, capture, tmp_path
):
    client = client_for(alice)
    first = upload_kit(client, bot, "go", kit_zip("go", tmp_path), capture)
    other = Bot.objects.create(owner=alice, game="snag", name="polyglot-2")
    second = upload_kit(client, other, "go", kit_zip("go", tmp_path), capture)
    versions = BotVersion.objects.filter(bot__in=[bot, other]).order_by("id")
    assert first["status"] == second["status"] == "ready"
    assert len({v.build_hash for v in versions}) == 1 and versions[0].build_hash


def test_a_compile_error_rejects_the_version_with_the_compilers_file_and_line(
    bot, alice, sandbox, code_store, capture
):
    client = client_for(alice)
    with capture(execute=True):
        response = upload(client, bot, "my_bot.cpp", COMPILE_ERROR, runtime="cpp")
    body = client.get(f"/api/bots/{bot.pk}/versions/{response.json()['number']}/").json()
    assert body["status"] == "rejected"
    assert "my_bot.cpp:4:12: error:" in body["build_log"]
    assert "undeclared_name" in body["build_log"]
    assert "my_bot.cpp:4:12: error" in body["status_reason"]
    # The build log is its owner's: others see the version without it.
    assert "build_log" not in client_for(None).get(f"/api/bots/{bot.pk}/versions/1/").json()


CGO = b"""package main

// int answer() { return 42; }
import "C"

func main() { println(C.answer()) }
"""


def test_a_go_bot_that_asks_for_c_is_rejected_and_a_built_one_is_static(
    bot, alice, sandbox, code_store, capture
):
    client = client_for(alice)
    with capture(execute=True):
        response = upload(client, bot, "main.go", CGO, runtime="go")
    body = client.get(f"/api/bots/{bot.pk}/versions/{response.json()['number']}/").json()
    assert body["status"] == "rejected"
    assert "cgo" in body["build_log"]
    other = Bot.objects.create(owner=alice, game="snag", name="gopher")
    with capture(execute=True):
        starter = (STARTERS_DIR / "go" / "main.go").read_bytes()
        response = upload(client, other, "main.go", starter, runtime="go")
    version = BotVersion.objects.get(bot=other, number=response.json()["number"])
    assert version.status == BotVersion.Status.READY, version.status_reason
    built = code_store / version.build_hash / "bot"
    assert is_static_elf(built.read_bytes()), "a static binary, with no loader to find"


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (NEVER_ENDS, "Killed signal terminated program cc1plus"),
        (FILLS_ITS_DISK, "the build failed"),
    ],
    ids=["never-ends", "fills-its-disk"],
)
def test_a_build_that_never_ends_or_fills_its_disk_is_rejected_within_its_limits(
    source, said, bot, alice, sandbox, code_store, capture, settings
):
    usual = settings.BAIZE_BUILD_LIMITS
    settings.BAIZE_BUILD_LIMITS = {**usual, "cpu_seconds": 2}
    client = client_for(alice)
    with capture(execute=True):
        response = upload(client, bot, "bot.cpp", source, runtime="cpp")
    body = client.get(f"/api/bots/{bot.pk}/versions/{response.json()['number']}/").json()
    assert body["status"] == "rejected"
    assert said in body["build_log"]
    assert stray_sandbox_processes() == []
    # Nothing else harmed: the next build on this worker builds and plays.
    settings.BAIZE_BUILD_LIMITS = usual
    again = Bot.objects.create(owner=alice, game="snag", name="after-the-storm")
    with capture(execute=True):
        good = upload(client, again, "bot.cpp", FIRST_LEGAL_CPP, runtime="cpp")
    assert (
        client.get(f"/api/bots/{again.pk}/versions/{good.json()['number']}/").json()["status"]
        == "ready"
    )


@pytest.mark.parametrize(
    ("runtime", "name", "data", "words"),
    [
        ("cobol", "bot.py", b"pass\n", "no runtime 'cobol'; there are: python,"),
        ("python", "bot.cpp", COMPILE_ERROR, "upload a .py file or a .zip for the python runtime"),
        ("executable", "bot", b"#!/bin/sh\necho hi\n", "bot is not an x86-64 Linux executable"),
        ("rust", "lib.zip", zip_code(BotCode({"lib.rs": b"fn f() {}"})), "no main.rs at the"),
    ],
    ids=["unknown", "wrong-file", "not-elf", "no-entry"],
)
def test_files_that_do_not_fit_the_runtime_are_refused_with_what_was_expected(
    runtime, name, data, words, bot, alice, code_store
):
    response = upload(client_for(alice), bot, name, data, runtime=runtime)
    assert response.status_code == 400
    assert words in response.json()["detail"]  # a message, as every refusal's
    assert not BotVersion.objects.filter(bot=bot).exists()


def test_an_executable_bit_in_a_zip_is_kept_where_the_bot_runs_it(
    bot, alice, sandbox, code_store, capture, tmp_path
):
    """A Python bot running a compiled helper of its upload (the bit used to be dropped)."""
    helper = tmp_path / "helper"
    source = tmp_path / "helper.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("42"); return 0; }\n')
    subprocess.run(["gcc", "-O1", "-o", str(helper), str(source)], check=True, timeout=120)
    bot_py = (STARTERS_DIR / "python" / "bot.py").read_text()
    calls_helper = (
        "import subprocess\n"
        "assert subprocess.run(['/bot/helper'], capture_output=True).stdout == b'42\\n'\n"
    )
    code = BotCode(
        {"bot.py": (calls_helper + bot_py).encode(), "helper": helper.read_bytes()},
        frozenset({"helper"}),
    )
    body = upload_kit(client_for(alice), bot, "python", zip_code(code), capture)
    assert body["status"] == "ready", body["status_reason"]


def test_a_worker_without_the_runtime_leaves_the_match_pending_for_one_that_has_it(
    bot, alice, sandbox, code_store, capture, tmp_path, monkeypatch
):
    body = upload_kit(
        client_for(alice), bot, "javascript", kit_zip("javascript", tmp_path), capture
    )
    version = BotVersion.objects.get(bot=bot, number=body["number"])
    statuses = dict(sandbox.runtimes())
    statuses["javascript"] = RuntimeStatus(RUNTIMES["javascript"], "/usr/bin/node not found", ())
    monkeypatch.setattr(type(sandbox), "runtimes", lambda self: statuses)
    match = match_create(game_id="snag", seed=12, options={})
    match_seats_create(match=match, versions=[version, builtin_bots_sync(game_id="snag")[0]])

    with pytest.raises(CodeUnavailable, match="the javascript runtime is not on this worker"):
        match_play(match_id=match.pk)
    assert Match.objects.get(pk=match.pk).status == Match.Status.PENDING
    assert match_event_count(match_id=match.pk) == 0
