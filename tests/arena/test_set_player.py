"""The set player: a pairing's sets under the sealing rule, the one place a set is played."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from arena.builtin.strategies import load as load_strategy
from arena.referee import Limits, MatchResult, StrategyPlayer
from arena.runner import ScriptLauncher
from arena.set_player import (
    MatchReferee,
    PlannedMatch,
    Seating,
    duplicate_sets,
    seated,
    sets_play,
)
from games.rules import get_game
from tests.bots.conftest import stray_sandbox_processes
from tests.processes import process_table

HONEST = Path(__file__).parent / "honest"
SNAG = get_game("snag")
LIMITS = Limits(decision_seconds=5.0)
OPTIONS = {"target": 5}
TOKEN = re.compile(r"start process=(\w+)")
ENDS = re.compile(r"end match=(\d+)")


def in_process(seed: int) -> StrategyPlayer:
    return StrategyPlayer(load_strategy("random"), seed)


def played_order(matches: Sequence[PlannedMatch], series_length: int) -> list[tuple[int, str]]:
    played = sets_play(
        game=SNAG,
        matches=matches,
        players=seated(in_process(1), in_process(2)),
        limits=LIMITS,
        series_length=series_length,
    )
    return [(match.match.number, match.match.seating.name) for match in played]


def test_a_runs_first_seatings_are_all_played_before_any_of_its_second_seatings():
    order = played_order(duplicate_sets(range(5), OPTIONS), series_length=2)

    assert order == [
        (1, "FIRST"), (2, "FIRST"), (1, "SWAPPED"), (2, "SWAPPED"),
        (3, "FIRST"), (4, "FIRST"), (3, "SWAPPED"), (4, "SWAPPED"),
        (5, "FIRST"), (5, "SWAPPED"),
    ]  # fmt: skip


def test_a_set_missing_one_seating_plays_the_other_in_its_own_series():
    plan = [m for m in duplicate_sets(range(3), OPTIONS) if (m.number, m.seating) != (2, 0)]

    assert played_order(plan, series_length=5) == [
        (1, "FIRST"), (3, "FIRST"), (1, "SWAPPED"), (2, "SWAPPED"), (3, "SWAPPED"),
    ]  # fmt: skip


def test_the_same_deal_is_played_from_both_seats_by_the_same_two_players():
    played = list(
        sets_play(
            game=SNAG,
            matches=duplicate_sets([7], OPTIONS),
            players=seated(in_process(1), in_process(2)),
            limits=LIMITS,
            series_length=1,
        )
    )
    first, swapped = (match.result for match in played)
    assert [match.match.seed for match in played] == [7, 7]
    # Both seedings of random play the deal once from each seat: the results are mirrored
    # only if the players were swapped, not the deal.
    assert first.decisions > 0 and swapped.decisions > 0


def test_a_series_length_below_one_is_refused():
    with pytest.raises(ValueError, match="at least one match"):
        list(
            sets_play(
                game=SNAG,
                matches=duplicate_sets([1]),
                players=seated(in_process(1), in_process(2)),
                limits=LIMITS,
                series_length=0,
            )
        )


# The sealing rule, with real processes. ---------------------------------------------------


class WatchingTable:
    """Plays every match, noting which processes live before and after each."""

    def __init__(self, live: Callable[[], set[int]]) -> None:
        self._live = live
        #: Each match, what lived before it was refereed, what lived after, its result.
        self.seen: list[tuple[PlannedMatch, set[int], set[int], MatchResult]] = []

    def play(self, match: PlannedMatch, position: int, referee: MatchReferee) -> MatchResult:
        before = self._live()
        result = referee(lambda kind, payload: None, None)
        self.seen.append((match, before, self._live(), result))
        return result


def live_children() -> set[int]:
    me = os.getpid()
    return {entry.pid for entry in process_table() if entry.parent == me and entry.state != "Z"}


def recorder(*args: str) -> ScriptLauncher:
    return ScriptLauncher(HONEST / "series_recorder.py", args)


def play_watched(first, second, live=set, sets: int = 3) -> WatchingTable:
    # Processes alive before (another test's, in this worker) are none of the series'.
    before = live()
    table = WatchingTable(lambda: live() - before)
    played = sets_play(
        game=SNAG,
        matches=duplicate_sets(range(sets), OPTIONS),
        players=seated(first, second),
        limits=LIMITS,
        series_length=sets,
        table=table,
    )
    assert all(match.result.forfeit is None for match in played)
    return table


def assert_sealed(table: WatchingTable) -> None:
    """No process of the first seatings lives when the first twin starts, nor plays one."""
    firsts = [seen for seen in table.seen if seen[0].seating is Seating.FIRST]
    seconds = [seen for seen in table.seen if seen[0].seating is Seating.SWAPPED]
    first_processes = set().union(*(after for _, _, after, _ in firsts))
    first_tokens = {t for *_, result in firsts for t in TOKEN.findall("".join(result.stderr))}
    second_tokens = {t for *_, result in seconds for t in TOKEN.findall("".join(result.stderr))}
    assert first_processes and first_tokens and second_tokens
    assert not first_processes & seconds[0][1]
    assert not first_tokens & second_tokens
    # One process per bot and seating: series still pay off.
    assert len(first_tokens) == len(second_tokens) == 2


def test_no_process_of_a_first_seating_is_alive_when_its_twin_is_played():
    assert_sealed(play_watched(recorder("series"), recorder("series"), live_children))


@pytest.mark.sandbox
def test_no_sandboxed_process_of_a_first_seating_is_alive_when_its_twin_is_played(sandbox):
    def boxed() -> ScriptLauncher:
        return sandbox.launcher(HONEST, script="series_recorder.py", args=("series",))

    assert stray_sandbox_processes() == []
    assert_sealed(play_watched(boxed(), boxed(), lambda: set(stray_sandbox_processes())))
    assert stray_sandbox_processes() == []


# What a bot writes is its match's. --------------------------------------------------------


@pytest.mark.parametrize("where", ["local", pytest.param("sandboxed", marks=pytest.mark.sandbox)])
def test_a_series_bots_last_words_when_its_input_ends_are_kept_with_its_last_match(where, request):
    def bot() -> ScriptLauncher:
        if where == "local":
            return recorder("series")
        sandbox = request.getfixturevalue("sandbox")
        return sandbox.launcher(HONEST, script="series_recorder.py", args=("series",))

    table = play_watched(bot(), bot(), sets=3)

    for match, _, _, result in table.seen:
        for seat in (0, 1):
            last = "input ended after match=3" in result.stderr[seat]
            assert last == (match.number == 3), (match, seat, result.stderr[seat])


@pytest.mark.parametrize("where", ["local", pytest.param("sandboxed", marks=pytest.mark.sandbox)])
def test_what_a_bot_writes_after_pondering_its_end_is_kept_with_the_match_that_ended(
    where, request
):
    """The bot computes for 10 ms of CPU on reading each ``end`` before noting it: a quiet
    period (it was 0.25 ms) would have cut it off; its next read of input does not. (A bot
    held off the CPU meanwhile: ``test_sandbox_control.py``.)"""

    def bot() -> ScriptLauncher:
        args = ("series", "ponder")
        if where == "local":
            return recorder(*args)
        sandbox = request.getfixturevalue("sandbox")
        return sandbox.launcher(HONEST, script="series_recorder.py", args=args)

    table = play_watched(bot(), bot(), sets=3)

    for match, _, _, result in table.seen:
        for seat in (0, 1):
            assert ENDS.findall(result.stderr[seat]) == [str(match.number)], result.stderr[seat]
