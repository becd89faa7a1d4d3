"""``manage.py version_test GAME NEW OLD``: the server's sequential test, played at home."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tournaments.sprt import SprtParameters, sprt_state


def version_test(*args: str) -> str:
    out = StringIO()
    call_command("version_test", *args, stdout=out)
    return out.getvalue()


def verdict(output: str) -> tuple[str, int, float]:
    """The verdict's words, the sets played and the LLR, from the last line."""
    found = re.fullmatch(
        r"verdict: (.+) after (\d+) sets: LLR (-?[\d.]+), bounds \[-2\.944, 2\.944\]",
        output.splitlines()[-1],
    )
    assert found, output
    return found.group(1), int(found.group(2)), float(found.group(3))


def test_the_heuristic_is_called_better_than_random_with_the_server_s_defaults():
    output = version_test("snag", "heuristic", "random", "--bot-seed", "3")

    assert output.splitlines()[:3] == [
        "candidate: builtin:snag_heuristic",
        "baseline: builtin:random",
        "test: elo0 0, elo1 50, alpha 0.05, beta 0.05, at most 1000 sets;"
        " LLR bounds [-2.944, 2.944]",
    ]
    words, sets, llr = verdict(output)
    assert words == "better (H1 accepted)"
    assert llr >= SprtParameters().upper_bound
    assert sets < 60  # "called better in a few dozen sets" (docs/ladder.md)
    # It stops at the first set that crosses the bound: the one before had not.
    lines = [line for line in output.splitlines() if line.startswith("set ")]
    assert len(lines) == sets
    assert float(lines[-2].rsplit("LLR ", 1)[1]) < SprtParameters().upper_bound


def test_the_printed_llr_is_the_server_s_for_the_record_played():
    output = version_test("jam", "heuristic", "random", "--max-sets", "4", "--bot-seed", "2")

    found = re.search(r"sets won-drawn-lost: (\d+)-(\d+)-(\d+);", output)
    wins, draws, losses = map(int, found.groups())
    parameters = SprtParameters(max_sets=4)
    state = sprt_state(wins, draws, losses, parameters)
    assert verdict(output)[1:] == (wins + draws + losses, round(state.llr, 3))


def test_a_version_is_not_called_better_than_itself():
    """The same strategy with one seed mirrors itself in each set: every set is drawn, a
    score of exactly 1/2, which the test soon calls not better (elo0 = 0)."""
    output = version_test("snag", "random", "random", "--bot-seed", "5", "--quiet")

    assert verdict(output)[0] == "not better (H0 accepted)"
    assert re.search(r"sets won-drawn-lost: 0-(\d+)-0;", output)


def test_a_few_sets_of_two_equal_bots_leave_the_test_inconclusive():
    """No record of 8 sets reaches a bound (its LLR stays within -1.24 and 1.07), so two
    equal bots, whatever their luck, are never called better in so few sets."""
    output = version_test("snag", "random", "random", "--max-sets", "8", "--quiet")

    words, sets, _ = verdict(output)
    assert (words, sets) == ("inconclusive (the cap on sets was reached)", 8)


def test_parameters_outside_the_server_s_bounds_are_refused():
    with pytest.raises(CommandError, match="elo0 must be below elo1"):
        version_test("snag", "random", "random", "--elo0", "10", "--elo1", "5")
    with pytest.raises(CommandError, match="max_sets"):
        version_test("snag", "random", "random", "--max-sets", "5000")
    with pytest.raises(CommandError, match="neither a bot file or folder nor a built-in bot"):
        version_test("snag", "no_such_bot", "random")
