"""The bench's C++ starter rows: the starter is built once in the sandbox, as an upload of
it is, and two of it play sandboxed series; its start-up is timed to its ``ready``."""

from __future__ import annotations

import os

import pytest

from ops import bot_benchmarks as bench
from ops.bot_benchmarks import MatchBots

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def native(sandbox):
    return bench.build_cpp_starter(sandbox)


def test_the_cpp_starter_is_built_into_a_program_the_slot_uids_can_run(native):
    program = native / "bot"
    assert sorted(p.name for p in native.iterdir()) == ["bot"]
    assert os.stat(program).st_mode & 0o005 == 0o005


def test_the_cpp_starter_starts_in_the_sandbox_and_plays_series(sandbox, native):
    cpu = bench.first_cpu()
    launcher = bench.cpp_starter_launcher(sandbox, native)

    assert bench.startup_ms(launcher, runs=2, cpu=cpu) > 0
    played = bench._series_on_cpu(MatchBots.NATIVE, sandbox, cpu, range(0, 3), 2, native)
    assert played == 3


def test_the_native_bots_need_their_build(sandbox):
    with pytest.raises(ValueError, match="build_cpp_starter"):
        bench.benchmark_players(MatchBots.NATIVE, 0, sandbox)
