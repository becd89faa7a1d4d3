"""Series: one process per seat plays several matches in a row (protocol version 2)."""

from __future__ import annotations

import ast
import dataclasses
import re
import time
from pathlib import Path

import pytest

from arena.referee import (
    Limits,
    MatchResult,
    ProcessConnection,
    referee_match,
    referee_series_match,
)
from arena.runner import BuiltinLauncher, LaunchSpec, ScriptLauncher
from arena.sandbox.scratch import MAX_ENTRIES
from arena.series import Series
from bots.services.check import smoke_test
from games.events import ForfeitReason
from games.rules import get_game
from tests.bots.conftest import stray_sandbox_processes

HONEST = Path(__file__).parent / "honest"
HOSTILE = Path(__file__).parent / "hostile"
SNAG = get_game("snag")
LIMITS = Limits(decision_seconds=5.0)
START = re.compile(r"start process=(\w+) seat=(\d) match=(\d+)/(\d+)")


def recorder(*args: str) -> ScriptLauncher:
    return ScriptLauncher(HONEST / "series_recorder.py", args)


def play_series(players: list, matches: int) -> list[MatchResult]:
    with Series(players, matches=matches) as series:
        return [
            series.play(SNAG, SNAG.new_match(seed, {"target": 5}), limits=LIMITS, emit=_ignore)
            for seed in range(matches)
        ]


def starts(result: MatchResult, seat: int) -> list[tuple[str, int, int, int]]:
    """The ``start`` lines the bot of ``seat`` noted during this match alone."""
    return [
        (process, int(s), int(m), int(n)) for process, s, m, n in START.findall(result.stderr[seat])
    ]


def test_a_series_bot_plays_every_match_of_its_series_in_one_process_told_its_place():
    results = play_series([recorder("series"), recorder("series")], matches=4)

    assert all(result.forfeit is None for result in results)
    for seat in (0, 1):
        noted = [starts(result, seat) for result in results]
        # Each match's stderr holds that match's start alone.
        assert [len(lines) for lines in noted] == [1, 1, 1, 1]
        assert [lines[0][1:] for lines in noted] == [(seat, m, 4) for m in (1, 2, 3, 4)]
        assert len({lines[0][0] for lines in noted}) == 1, "one process for the whole series"
    assert starts(results[0], 0)[0][0] != starts(results[0], 1)[0][0]


def test_a_version_1_bot_plays_each_match_in_a_fresh_process_beside_a_series_bot():
    results = play_series([recorder(), recorder("series")], matches=3)

    assert all(result.forfeit is None for result in results)
    version_1 = {starts(result, 0)[0][0] for result in results}
    series = {starts(result, 1)[0][0] for result in results}
    assert len(version_1) == 3
    assert len(series) == 1


def test_a_bot_that_crashes_in_match_3_of_10_forfeits_match_3_only():
    results = play_series([recorder("series", "crash", "3"), recorder("series")], matches=10)

    forfeits = [(n, r.forfeit) for n, r in enumerate(results, start=1) if r.forfeit]
    assert [(n, f.seat, f.reason) for n, f in forfeits] == [(3, 0, ForfeitReason.CRASH)]
    assert "deliberate crash in match 3" in results[2].stderr[0]
    processes = [starts(result, 0)[0][0] for result in results]
    # Matches 1 to 3 in the first process; a fresh one plays 4 to 10.
    assert len(set(processes[:3])) == 1
    assert len(set(processes[3:])) == 1
    assert processes[2] != processes[3]
    # Its opponent kept its one process throughout.
    assert len({starts(result, 1)[0][0] for result in results}) == 1


def test_a_bot_that_exits_between_two_matches_of_its_series_forfeits_neither():
    # A bot that declared series but ends at ``end``: the next match gets a fresh process.
    players = [ScriptLauncher(HONEST / "series_recorder.py", ("series", "quit")), recorder()]
    results = play_series(players, matches=3)

    assert all(result.forfeit is None for result in results)


def test_built_in_bots_play_a_series_through_the_same_processes():
    players = [BuiltinLauncher("snag_heuristic", 1), BuiltinLauncher("random", 2)]
    results = play_series(players, matches=3)

    assert [result.forfeit for result in results] == [None, None, None]
    assert all(result.decisions > 0 for result in results)


def test_a_seeded_built_in_bot_plays_match_n_of_a_series_as_a_fresh_one_seeded_n_1_later():
    seeds = (7, 8, 9)
    in_series, alone = Moves(), Moves()
    with Series([BuiltinLauncher("random", 7), BuiltinLauncher("random", 7)], matches=3) as series:
        for seed in seeds:
            state = SNAG.new_match(seed, {"target": 5})
            series.play(SNAG, state, limits=LIMITS, emit=in_series.emit)
    for seed in seeds:
        players = [BuiltinLauncher("random", seed), BuiltinLauncher("random", seed)]
        state = SNAG.new_match(seed, {"target": 5})
        referee_match(SNAG, state, players, limits=LIMITS, emit=alone.emit)

    assert len(in_series.moves) > 3 * 10
    assert in_series.moves == alone.moves


@dataclasses.dataclass
class Moves:
    """The seat and action of every decision emitted, in order."""

    moves: list = dataclasses.field(default_factory=list)

    def emit(self, kind: str, payload: dict) -> None:
        if kind == "decision":
            self.moves.append((payload["seat"], payload["action"]))


@dataclasses.dataclass
class _Remembering:
    """A launcher that keeps the control of each spec it hands out."""

    inner: object
    controls: list = dataclasses.field(default_factory=list)

    def launch_spec(self) -> LaunchSpec:
        spec = self.inner.launch_spec()
        self.controls.append(spec.control)
        return spec


@pytest.mark.sandbox
def test_between_two_matches_a_kept_bot_is_frozen_whole(sandbox):
    ponderer = _Remembering(sandbox.launcher(HOSTILE, script="ponderer.py"))
    opponent = sandbox.launcher(HONEST, script="series_recorder.py", args=("series",))
    connections = [ProcessConnection(p, series=True) for p in (ponderer, opponent)]
    try:
        for match in (1, 2):
            state = SNAG.new_match(match, {"target": 1})
            result = referee_series_match(
                SNAG, state, connections, limits=LIMITS, emit=_ignore, position=(match, 2)
            )
            assert result.forfeit is None, result.forfeit
        # After its second end the ponderer's thread spins, unless it is frozen.
        control = ponderer.controls[0]
        before = control.cpu_seconds()
        time.sleep(0.3)
        used = control.cpu_seconds() - before
    finally:
        for connection in connections:
            connection.close()

    assert len(ponderer.controls) == 1, "one process played both matches"
    assert used <= 0.011, f"between matches it still used {used:.3f} s"
    assert stray_sandbox_processes() == []


FILES = re.compile(r"files process=(\w+) match=(\d+) tmp=(\[.*?\]) shm=(\[.*?\]) held=(.*)")


def files_noted(result: MatchResult, seat: int) -> list[tuple[str, int, list, list, str]]:
    """What ``series_files.py`` in ``seat`` saw of its files at this match's ``start``."""
    return [
        (process, int(match), ast.literal_eval(tmp), ast.literal_eval(shm), held)
        for process, match, tmp, shm, held in FILES.findall(result.stderr[seat])
    ]


def play_sandboxed_series(sandbox, bot_args: tuple[str, ...], matches: int) -> list[MatchResult]:
    players = [
        sandbox.launcher(HONEST, script="series_files.py", args=bot_args),
        sandbox.launcher(HONEST, script="series_recorder.py", args=("series",)),
    ]
    with Series(players, matches=matches) as series:
        return [
            series.play(SNAG, SNAG.new_match(seed, {"target": 1}), limits=LIMITS, emit=_ignore)
            for seed in range(matches)
        ]


@pytest.mark.sandbox
def test_files_a_bot_wrote_are_gone_at_its_next_match_and_its_memory_stays(sandbox, tmp_path):
    # Symlinks to this folder of the host's, planted in /tmp, must be removed, not followed.
    host = tmp_path / "host"
    host.mkdir()
    (host / "canary.txt").write_text("still here")
    results = play_sandboxed_series(sandbox, ("plant", str(host)), matches=3)

    assert all(result.forfeit is None for result in results), [r.forfeit for r in results]
    noted = [files_noted(result, 0) for result in results]
    assert [len(lines) for lines in noted] == [1, 1, 1]
    (first, second, third) = (lines[0] for lines in noted)
    assert first[0] == second[0] == third[0], "one process played the whole series"
    assert first[1:] == (1, [], [], "none")
    # Its /tmp and /dev/shm are empty at each later match; the file it kept open since
    # match 1 is still readable through its descriptor (memory, not a file of the folder).
    assert second[1:] == (2, [], [], "held since match 1")
    assert third[1:] == (3, [], [], "held since match 1")
    assert sorted(p.name for p in host.iterdir()) == ["canary.txt"]
    assert (host / "canary.txt").read_text() == "still here"
    assert stray_sandbox_processes() == []


@pytest.mark.sandbox
def test_a_bot_that_leaves_too_many_files_to_empty_gets_a_fresh_process(sandbox):
    results = play_sandboxed_series(sandbox, ("flood", str(MAX_ENTRIES)), matches=2)

    assert all(result.forfeit is None for result in results), [r.forfeit for r in results]
    (first,), (second,) = (files_noted(result, 0) for result in results)
    assert first[0] != second[0], "the second match was played by a fresh process"
    assert second[1:] == (2, [], [], "none")
    assert stray_sandbox_processes() == []


def _ignore(kind: str, payload: dict) -> None:
    pass


# The upload check plays a ladder pairing's sets: each seating a series of its own.


def test_the_upload_check_finds_a_bot_that_plays_series_and_one_that_does_not(settings):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    series_bot = smoke_test(SNAG, lambda: recorder("series"), LIMITS)
    one_match_bot = smoke_test(SNAG, lambda: recorder(), LIMITS)

    assert series_bot.problem == "" and series_bot.plays_series
    assert one_match_bot.problem == "" and not one_match_bot.plays_series
    # Three matches a seat, told their places as on the ladder, whether it plays series or
    # not: one process a seating for the series bot, one a match for the other.
    for check in (series_bot, one_match_bot):
        noted = START.findall(check.log)
        assert [(int(s), int(m), int(n)) for _, s, m, n in noted] == [
            (seat, match, 3) for seat in (0, 1) for match in (1, 2, 3)
        ]
    series_processes = [process for process, *_ in START.findall(series_bot.log)]
    assert len(set(series_processes[:3])) == len(set(series_processes[3:])) == 1
    assert set(series_processes[:3]).isdisjoint(series_processes[3:]), "a process a seating"
    assert len({process for process, *_ in START.findall(one_match_bot.log)}) == 6


def test_the_upload_check_turns_away_a_series_bot_that_breaks_in_its_second_match():
    check = smoke_test(SNAG, lambda: recorder("series", "crash", "2"), LIMITS)

    assert check.problem.startswith("in seat 0, your bot forfeited (crash)")
    assert "deliberate crash in match 2" in check.problem and not check.plays_series


ENDS = re.compile(r"end match=(\d+) scores=\[(\d+), (\d+)\]")


@pytest.mark.sandbox
@pytest.mark.parametrize("where", ["sandboxed", "local"])
def test_what_a_kept_bot_writes_after_its_end_is_kept_with_the_match_that_ended(sandbox, where):
    def bot(*args: str):
        if where == "local":
            return recorder(*args)
        return sandbox.launcher(HONEST, script="series_recorder.py", args=args)

    results = play_series([bot("series", "bye", "2"), bot("series")], matches=4)

    assert all(result.forfeit is None for result in results)
    for number, result in enumerate(results, start=1):
        for seat in (0, 1):
            noted = [(int(m), [int(a), int(b)]) for m, a, b in ENDS.findall(result.stderr[seat])]
            assert noted == [(number, list(result.scores))], (number, seat, result.stderr[seat])
    # Its last line before it exited between matches 2 and 3 is match 2's.
    assert "bye after match=2" in results[1].stderr[0]
    assert not any("bye" in result.stderr[0] for result in (results[0], *results[2:]))
