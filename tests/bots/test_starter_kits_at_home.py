"""Every starter kit's README gives the command that plays it against a built-in bot at home,
and that command, run as written, without the sandbox and without root's powers, plays a
whole match: a native bot is built with this machine's toolchain and run as the author's own
process (``arena.home``).

Without root's powers: every capability dropped (effective, inheritable, ambient and the
bounding set) with no new privileges, so the command can neither switch uids, mount, make
namespaces nor write a cgroup, all the sandbox needs. (The uid stays 0: on this machine the
project's interpreter lives under root's own home, which no other user may enter.)"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.runtimes import RUNTIMES, STARTERS_DIR

ROOT = Path(__file__).resolve().parents[2]
#: ``setpriv`` options that leave a command no capability, now or after an exec.
POWERLESS = ("--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs")
#: The kits that hold a bot (the executable kit explains how to bring one's own binary).
KITS = sorted(name for name in RUNTIMES if (STARTERS_DIR / name / "README.md").is_file())
COMMAND = re.compile(r"^(DEBUG=1 \.venv/bin/python manage\.py play \S+ \S+ random.*)$", re.M)


def readme_command(kit: str) -> str | None:
    found = COMMAND.search((STARTERS_DIR / kit / "README.md").read_text())
    return None if found is None else found.group(1)


def test_every_kit_with_a_bot_says_how_to_play_it_at_home():
    with_a_bot = [kit for kit in KITS if any((STARTERS_DIR / kit).glob("*.*[!d]"))]
    assert with_a_bot and all(readme_command(kit) for kit in with_a_bot if kit != "executable")


@pytest.mark.slow(seconds=40)
@pytest.mark.parametrize("kit", [kit for kit in KITS if kit != "executable"])
def test_a_kits_readme_command_plays_it_at_home_without_root_or_sandbox(kit, tmp_path):
    command = readme_command(kit)
    assert command is not None, f"examples/starters/{kit}/README.md gives no play command"
    if shutil.which("setpriv") is None:
        pytest.fail("setpriv (util-linux) is needed to run the command without root's powers")
    var = tmp_path / "var"
    var.mkdir()
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "BAIZE_VAR_DIR": str(var)}
    done = subprocess.run(
        (
            "setpriv", *POWERLESS, "/bin/sh", "-c",
            f"grep CapEff /proc/self/status && {command} --quiet",
        ),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    assert "CapEff:\t0000000000000000" in done.stdout
    assert "unsandboxed" in done.stdout
    assert re.search(r"^winner: seat \d, scores \[\d+, \d+\], played", done.stdout, re.M), (
        done.stdout[-2000:]
    )
