"""``manage.py play``: two local bots, the server's protocol and limits, the play printed;
with ``--sets``, duplicate sets read as the server reads a challenge's (``ladder.home``)."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from .uploads import FIRST_LEGAL_CPP

ROOT = Path(__file__).parents[2]


def play(*args: str) -> str:
    out = StringIO()
    call_command("play", *args, stdout=out)
    return out.getvalue()


def test_a_local_file_plays_a_built_in_bot_and_every_decision_is_printed():
    output = play(
        "snag", str(ROOT / "examples" / "snag" / "bot.py"), "random", "--option", "target=5"
    )
    assert output.splitlines()[0] == (
        f"seat 0: script:{ROOT / 'examples' / 'snag' / 'bot.py'}"
        " (unsandboxed: your own process, wall-clock time)"
    )
    assert "seat 1: builtin:random" in output
    assert "  seat 0: {" in output and "µs)" in output
    assert "winner: seat" in output and "played" in output


def test_a_folder_with_bot_py_and_a_builtin_strategy_name_are_bots():
    output = play("jam", str(ROOT / "examples" / "jam"), "jam_heuristic", "--quiet")
    assert "builtin:jam_heuristic" in output
    assert "  seat 0:" not in output  # --quiet prints only the result


def test_a_forfeit_is_printed_with_its_reason_and_the_bots_stderr():
    crash = ROOT / "tests" / "arena" / "hostile" / "crash.py"
    output = play("snag", str(crash), "random", "--decision-seconds", "0.5")
    assert "seat 0 forfeits (crash)" in output
    assert "--- stderr of seat 0 ---" in output and "deliberate crash" in output


@pytest.mark.sandbox
def test_bot_files_can_run_in_the_sandbox(sandbox):
    output = play("snag", str(ROOT / "examples" / "snag"), "random", "--sandbox", "--quiet")
    assert "seat 0: sandbox:" in output and "/bot.py" in output
    assert "played" in output


def test_an_unknown_bot_or_option_is_a_clear_error():
    with pytest.raises(CommandError, match="neither a bot file or folder nor a built-in bot"):
        play("snag", "no_such_bot", "random")
    with pytest.raises(CommandError, match="NAME=VALUE"):
        play("snag", "random", "random", "--option", "target")
    with pytest.raises(CommandError, match="neither a bot file or folder"):
        play("snag", "missing.py", "random")


def test_play_with_the_sandbox_below_full_says_why_and_stops(monkeypatch, tmp_path):
    from django.core.management import CommandError, call_command

    from arena.sandbox import SandboxConfig, SandboxLevel
    from arena.sandbox.probe import Sandbox, SandboxReport

    report = SandboxReport(SandboxLevel.LIMITS, {"namespaces": "bwrap not found"})
    unsafe = Sandbox(SandboxConfig(state_dir=tmp_path), report)
    monkeypatch.setattr("bots.services.launch.probed_sandbox", lambda: unsafe)
    bot = tmp_path / "bot.py"
    bot.write_text("print('never run')\n")

    with pytest.raises(CommandError, match="--sandbox cannot run here: .*bwrap not found"):
        call_command("play", "snag", str(bot), "random", "--sandbox")


def test_play_with_the_sandbox_below_full_prints_one_line_and_exits_non_zero(tmp_path):
    """The probe's whole report is not printed: only why the sandbox cannot run, once."""
    import os
    import subprocess
    import sys

    bot = tmp_path / "bot.py"
    bot.write_text("print('never run')\n")
    # An interpreter that does not exist keeps the sandbox below full on any host.
    env = {
        **os.environ,
        "BAIZE_SANDBOX_PYTHON": str(tmp_path / "no-python"),
        "BAIZE_SANDBOX_DIR": str(tmp_path / "sandbox"),
    }
    run = subprocess.run(
        [sys.executable, "manage.py", "play", "snag", str(bot), "random", "--sandbox"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert run.returncode != 0
    assert run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        f"CommandError: --sandbox cannot run here: sandbox level none is below full "
        f"(python: the bots' interpreter {tmp_path / 'no-python'} does not run: "
        f"[Errno 2] No such file or directory: '{tmp_path / 'no-python'}')"
    ]


@pytest.mark.sandbox
def test_a_time_thief_cannot_make_an_honest_bot_forfeit_on_time_in_play_sandbox(sandbox):
    """Both files sandboxed, as on the server: the thief's helpers, setsid'd and spinning
    while the honest bot computes, are frozen with it."""
    thief = ROOT / "tests" / "arena" / "hostile" / "time_thief.py"
    honest = ROOT / "tests" / "arena" / "honest" / "cpu_bound.py"
    output = play(
        "snag", str(thief), str(honest), "--sandbox", "--seed", "2", "--option", "target=10",
        "--decision-seconds", "0.2", "--time-bank", "1",
    )  # fmt: skip

    assert "seat 1 forfeits" not in output
    assert "played" in output
    assert len([line for line in output.splitlines() if line.startswith("  seat 1:")]) >= 30


@pytest.mark.sandbox
def test_play_builds_a_cpp_bot_in_the_sandbox_with_the_servers_build(sandbox, tmp_path):
    source = tmp_path / "my_bot.cpp"
    source.write_bytes(FIRST_LEGAL_CPP)
    output = play("snag", str(source), "random", "--sandbox", "--quiet")
    assert "seat 0: sandbox:" in output and "./bot" in output
    assert "played" in output


@pytest.mark.sandbox
def test_play_refuses_what_an_upload_would_refuse(sandbox, tmp_path):
    (tmp_path / "bot.py").write_text("def broken(:\n")
    with pytest.raises(CommandError, match="the server would refuse .*bot.py line 1"):
        play("snag", str(tmp_path), "random", "--sandbox")
    (tmp_path / "bot.py").write_text("print('fine')\n")
    # At home too, without the sandbox: the files are read as an upload of them would be.
    with pytest.raises(CommandError, match="the server would refuse .*no \\*\\.cpp at the"):
        play("snag", str(tmp_path), "random", "--runtime", "cpp")


def test_play_builds_a_cpp_bot_at_home_and_runs_it_unsandboxed(tmp_path, settings):
    settings.VAR_DIR = tmp_path / "var"
    source = tmp_path / "my_bot.cpp"
    source.write_bytes(FIRST_LEGAL_CPP)
    output = play("snag", str(source), "random", "--quiet")
    assert "seat 0: my_bot.cpp (cpp, unsandboxed: your own process" in output
    assert "played" in output
    # Built once: the second match finds the build.
    builds = list((settings.VAR_DIR / "home-builds").iterdir())
    assert len(builds) == 1 and (builds[0] / "bot").is_file()
    assert "played" in play("snag", str(source), "random", "--quiet")
    assert list((settings.VAR_DIR / "home-builds").iterdir()) == builds


def test_play_says_why_a_bot_built_at_home_fails_its_build(tmp_path, settings):
    settings.VAR_DIR = tmp_path / "var"
    (tmp_path / "bot.cpp").write_text("int main( {")
    with pytest.raises(CommandError, match="(?s)the build of .* failed:.*error"):
        play("snag", str(tmp_path / "bot.cpp"), "random")


def sets_record(output: str) -> tuple[int, int, int, float, float]:
    """Sets won, drawn and lost and the score's interval, from the last line of ``--sets``."""
    found = re.search(
        r"sets won-drawn-lost: (\d+)-(\d+)-(\d+); score [\d.]+,"
        r" 95% interval \[([\d.]+), ([\d.]+)\]",
        output.splitlines()[-1],
    )
    assert found, output
    wins, draws, losses, low, high = found.groups()
    return int(wins), int(draws), int(losses), float(low), float(high)


def test_sets_of_the_heuristic_against_random_give_a_score_interval_above_one_half():
    output = play("snag", "heuristic", "random", "--sets", "10", "--bot-seed", "3")

    wins, draws, losses, low, high = sets_record(output)
    assert wins + draws + losses == 10
    assert low > 0.5 and high <= 1.0
    assert output.splitlines()[:2] == ["first: builtin:snag_heuristic", "second: builtin:random"]
    assert len(re.findall(r"^set \d+ \(seed \d+\): (won|drawn|lost), matches", output, re.M)) == 10


def test_set_k_deals_from_seed_plus_k_minus_one_and_each_line_reads_as_the_server_reads_it():
    output = play("jam", "heuristic", "random", "--sets", "3", "--seed", "7", "--bot-seed", "1")

    lines = [line for line in output.splitlines() if line.startswith("set ")]
    assert [line.split(":")[0] for line in lines] == [
        "set 1 (seed 7)",
        "set 2 (seed 8)",
        "set 3 (seed 9)",
    ]
    for line in lines:
        found = re.search(r": (\w+), matches (\d)-(\d), points (-?\d+)-(-?\d+)", line)
        word, won, lost, points, against = found.group(1), *map(int, found.groups()[1:])
        # tournaments.duplicate: more matches won wins the set, then more points, else drawn
        expected = (won, points) > (lost, against), (won, points) == (lost, against)
        assert word == ("won" if expected[0] else "drawn" if expected[1] else "lost")


def test_identical_bots_with_one_seed_draw_every_set_since_each_twin_mirrors_the_other():
    """Each set plays one deal from both seats: the same strategy with the same seed plays
    seat 0 of both matches alike, so each bot wins one match with the same points."""
    output = play("snag", "random", "random", "--sets", "4", "--bot-seed", "11", "--quiet")

    assert sets_record(output)[:3] == (0, 4, 0)
    assert "set 1" not in output  # --quiet prints the record alone


def test_a_bot_that_forfeits_loses_its_sets_and_the_forfeits_are_printed_with_its_stderr():
    crash = ROOT / "tests" / "arena" / "hostile" / "crash.py"
    output = play("snag", str(crash), "random", "--sets", "2", "--decision-seconds", "0.5")

    wins, draws, losses, low, high = sets_record(output)
    assert (wins, draws, losses) == (0, 0, 2)
    assert (low, high) == (0.0, 0.658)
    assert output.count(f"script:{crash} forfeits in seat") == 4
    assert "--- stderr of script:" in output and "deliberate crash" in output


def test_sets_are_refused_with_a_replay_or_fewer_than_one():
    with pytest.raises(CommandError, match="--sets counts sets from 1"):
        play("snag", "random", "random", "--sets", "0")
    with pytest.raises(CommandError, match="leave out --replay"):
        play("random", "--replay", str(ROOT / "README.md"), "--seat", "0", "--sets", "2")


@pytest.mark.sandbox
def test_sets_of_a_sandboxed_bot_folder_are_played_as_an_upload_of_it(sandbox):
    folder = ROOT / "examples" / "snag"
    output = play("snag", str(folder), "random", "--sandbox", "--sets", "2", "--quiet")

    assert output.splitlines()[0].startswith("first: sandbox:")
    assert sum(sets_record(output)[:3]) == 2
