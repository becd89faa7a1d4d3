"""A version's build log says what was run, with what, how long it took and everything the
build wrote, warnings included, whether it built or not; a prebuilt native bot's toolchain
is the C library and C++ runtime it runs against."""

from __future__ import annotations

import pytest

from arena.builds import BuildResult
from arena.runtimes import RUNTIMES, RuntimeStatus
from bots.models import Bot
from bots.services.build import REUSED, build_log
from bots.services.toolchains import runtime_toolchain
from tests.bots.test_api import client_for, upload
from tests.bots.uploads import FIRST_LEGAL_CPP

CPP = RUNTIMES["cpp"]
TOOLCHAIN = ["g++ (Debian 12.2.0-14+deb12u1) 12.2.0"]


def test_a_quiet_build_s_log_says_its_command_toolchain_time_and_that_it_wrote_nothing():
    log = build_log(CPP, TOOLCHAIN, BuildResult(code=object(), log="", seconds=1.24))

    assert log.splitlines() == [
        "$ g++ -std=c++20 -O2 -o bot *.cpp",
        "toolchain: g++ (Debian 12.2.0-14+deb12u1) 12.2.0",
        "built in 1.2 s, in the sandbox",
        "its output (the compiler's messages, warnings included):",
        "(none: no warning, no error)",
    ]


def test_a_failed_build_s_log_keeps_all_it_wrote_under_the_same_heading():
    output = "bot.cpp:4:12: error: 'x' was not declared\nthe build failed (exit status 1)\n"
    log = build_log(CPP, TOOLCHAIN, BuildResult(code=None, log=output, seconds=0.5))

    assert "failed in 0.5 s, in the sandbox" in log
    assert log.endswith(output.rstrip("\n"))


def test_a_prebuilt_native_bot_s_toolchain_is_the_c_library_and_c_plus_plus_runtime_here():
    status = RuntimeStatus(RUNTIMES["executable"], "", ())

    glibc, libstdcxx = runtime_toolchain(status)

    assert glibc.startswith("glibc 2.") and "(Debian libc6 " in glibc
    assert libstdcxx.startswith("libstdc++.so.6.0.") and "(Debian libstdc++6 " in libstdcxx
    # A row with commands of its own keeps their lines.
    assert runtime_toolchain(RuntimeStatus(CPP, "", tuple(TOOLCHAIN))) == tuple(TOOLCHAIN)


WARNS = b'#warning "the strategy is a placeholder"\n' + FIRST_LEGAL_CPP


@pytest.mark.sandbox
def test_a_built_version_s_log_holds_the_compiler_s_warnings_and_a_rebuild_says_it_was_not_built(
    alice, sandbox, code_store, django_capture_on_commit_callbacks
):
    client = client_for(alice)
    logs = []
    for name in ("warned", "warned-again"):
        bot = Bot.objects.create(owner=alice, game="snag", name=name)
        with django_capture_on_commit_callbacks(execute=True):
            response = upload(client, bot, "bot.cpp", WARNS, runtime="cpp")
        body = client.get(f"/api/bots/{bot.pk}/versions/{response.json()['number']}/").json()
        assert body["status"] == "ready", body["status_reason"]
        logs.append(body["build_log"])

    built, reused = logs
    assert built.startswith("$ g++ -std=c++20 -O2 -o bot *.cpp\ntoolchain: g++ (Debian")
    assert "\nbuilt in " in built
    assert 'bot.cpp:1:2: warning: #warning "the strategy is a placeholder"' in built
    assert reused == f"{REUSED}\n{built}"
