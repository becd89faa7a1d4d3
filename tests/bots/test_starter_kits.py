"""The starter kits in ``examples/starters/``: for each runtime, the kit is built as the server
builds that runtime's uploads (the very commands of ``docs/runtimes.md``, from a copy of the
kit), then plays every game through the referee against a built-in bot, from both seats,
without forfeiting, and a series of two matches in one process.

These run unsandboxed (the kits' protocol loops are under test, not the sandbox) and need
the runtimes' Debian toolchains: a missing one fails the test, naming ``make runtime-deps``,
rather than skipping it. Each kit is built once per test session (``built``)."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.referee import ProcessConnection, referee_match, referee_series_match
from arena.runner import BuiltinLauncher, LaunchSpec
from arena.runtimes import RUNTIMES, SANDBOX_PYTHON, Runtime
from bots.services.launch import referee_limits
from games.rules import GAMES, get_game

from .uploads import is_static_elf

ROOT = Path(__file__).parents[2]
STARTERS = ROOT / "examples" / "starters"
#: What a build may take: a C++ build with nlohmann-json's header takes ~10 s on a busy host.
BUILD_SECONDS = 300
#: The build's and the bot's environment: as the runner's, Debian's own programs only (the Go
#: build adds its folders, in the build's own temporary folder).
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
MISSING = "run `make runtime-deps` to install the bot runtimes' toolchains"

# Every kit's test runs on one xdist worker, so that each kit is built once.
pytestmark = pytest.mark.xdist_group("starter_kits")


@dataclasses.dataclass(frozen=True)
class Kit:
    """One runtime's starter: the files an author uploads, how the server builds and runs them
    (the runtimes table's own commands, ``arena.runtimes``)."""

    runtime: str
    #: The toolchain's files, all Debian's (``make runtime-deps``).
    tools: tuple[str, ...]
    #: The upload's files, as globs in the kit's folder.
    files: tuple[str, ...]
    #: The build's shell command; ``None``: no build step.
    build: str | None
    run: tuple[str, ...]


#: The executable's kit is the C++ source, built statically on the author's machine.
STATIC_BUILD = "g++ -std=c++20 -O2 -static -o bot bot.cpp"


def _kit(runtime: Runtime) -> Kit:
    run = tuple("/usr/bin/python3" if word == SANDBOX_PYTHON else word for word in runtime.run)
    tools = tuple(word for word in (run[0],) if word.startswith("/"))
    if runtime.name == "executable":
        return Kit(runtime.name, ("/usr/bin/g++",), ("*.cpp",), STATIC_BUILD, run)
    if runtime.name == "cpp":
        tools += ("/usr/bin/g++", "/usr/include/nlohmann/json.hpp")
    files = ("*",)
    return Kit(runtime.name, tools, files, runtime.build, run)


KITS = {name: _kit(runtime) for name, runtime in RUNTIMES.items()}


@dataclasses.dataclass
class BuiltKit:
    """A launcher for a built kit: its run command, from the folder the upload was built in.
    Counts its launches (one per process)."""

    argv: tuple[str, ...]
    cwd: Path
    launches: list[int] = dataclasses.field(default_factory=list)

    def launch_spec(self) -> LaunchSpec:
        self.launches.append(1)
        return LaunchSpec(self.argv, str(self.cwd), env=ENV)

    def __str__(self) -> str:
        return f"starter:{self.cwd.name}"


def _require_toolchain(kit: Kit) -> None:
    missing = [tool for tool in kit.tools if not Path(tool).exists()]
    if missing:
        pytest.fail(f"the {kit.runtime} runtime's {', '.join(missing)} is missing: {MISSING}")
    if kit.runtime == "python-scientific":
        probe = subprocess.run(
            ["/usr/bin/python3", "-I", "-c", "import numpy, scipy"], capture_output=True, text=True
        )
        if probe.returncode != 0:
            pytest.fail(f"Debian's numpy and scipy do not import: {MISSING}\n{probe.stderr}")


def _upload(kit: Kit, folder: Path) -> None:
    """Copy the kit's files to ``folder``, as an author's upload lands there."""
    source = STARTERS / ("cpp" if kit.runtime == "executable" else kit.runtime)
    for pattern in ("*.cpp",) if kit.runtime == "executable" else kit.files:
        for path in source.glob(pattern):
            shutil.copy(path, folder / path.name)


def _build(kit: Kit, workspace: Path) -> Path:
    """Build ``kit`` in ``workspace`` as the server builds the runtime: the folder to run in."""
    _require_toolchain(kit)
    folder = workspace / "bot"
    folder.mkdir()
    _upload(kit, folder)
    if kit.build is None:
        return folder
    env = dict(ENV, HOME=str(workspace))
    build = subprocess.run(
        ["/bin/sh", "-c", kit.build],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_SECONDS,
    )
    assert build.returncode == 0, f"{kit.runtime}: the build failed\n{build.stdout}{build.stderr}"
    if kit.runtime == "executable":
        # The upload is the built file alone, run from a folder that holds nothing else.
        upload = workspace / "upload"
        upload.mkdir()
        shutil.copy2(folder / "bot", upload / "bot")
        return upload
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each runtime's kit, built once, on first use: the runtime's name to its launcher's
    argv and folder."""
    folders: dict[str, Path] = {}

    def get(runtime: str) -> BuiltKit:
        kit = KITS[runtime]
        if runtime not in folders:
            folders[runtime] = _build(kit, tmp_path_factory.mktemp(f"kit-{runtime}"))
        return BuiltKit(kit.run, folders[runtime])

    return get


def test_there_is_a_kit_with_a_readme_for_every_runtime():
    assert sorted(path.name for path in STARTERS.iterdir() if path.is_dir()) == sorted(KITS)
    for runtime in KITS:
        assert (STARTERS / runtime / "README.md").is_file(), runtime


def test_every_kit_s_readme_names_its_build_and_run_commands():
    for runtime, kit in KITS.items():
        readme = (STARTERS / runtime / "README.md").read_text()
        for command in (kit.build, kit.run):
            if command is not None:
                shown = command if isinstance(command, str) else " ".join(command)
                # The sandbox's Python is Debian's /usr/bin/python3, which a README may call
                # python3.
                short = shown.replace("/usr/bin/python3", "python3")
                assert shown in readme or short in readme, (runtime, command)


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("runtime", sorted(KITS))
def test_the_starter_plays_a_whole_match_of_every_game_from_both_seats(built, runtime, game_id):
    game, starter = get_game(game_id), built(runtime)
    for seed, seat in ((1, 0), (2, 1)):
        players = [BuiltinLauncher("random", seed=seed)]
        players.insert(seat, starter)
        result = referee_match(
            game, game.new_match(seed), players, limits=referee_limits(), emit=lambda k, p: None
        )
        assert result.forfeit is None, (result.forfeit, result.stderr[seat])
        assert result.decisions > 0
        # It logs to stderr, which the runner keeps for its author.
        assert f"start: {game_id} seat {seat}" in result.stderr[seat]


@pytest.mark.parametrize("runtime", sorted(KITS))
def test_the_starter_declares_series_and_plays_two_matches_in_one_process(built, runtime):
    starter, snag = built(runtime), get_game("snag")
    players = [starter, BuiltinLauncher("random", seed=3)]
    connections = [ProcessConnection(player, series=True) for player in players]
    try:
        for match in (1, 2):
            result = referee_series_match(
                snag,
                snag.new_match(match, {"target": 10}),
                connections,
                limits=referee_limits(),
                emit=lambda k, p: None,
                position=(match, 2),
            )
            assert result.forfeit is None, (result.forfeit, result.stderr[0])
            assert connections[0].plays_series
            assert "start: snag seat 0" in result.stderr[0]
    finally:
        for connection in connections:
            connection.close()
    assert len(starter.launches) == 1, "one process played both matches"


def test_the_built_executable_is_static_and_alone_in_its_upload(built):
    starter = built("executable")
    assert sorted(path.name for path in starter.cwd.iterdir()) == ["bot"]
    assert is_static_elf((starter.cwd / "bot").read_bytes())
