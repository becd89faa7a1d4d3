"""Each table is the only statement of what it holds: a second statement elsewhere fails
here, as a write from outside its writers fails the layers' test.

- The runtimes table (``arena/runtimes.py``): the Debian packages of each row are read from
  it by the Makefile and the worker image (``python3 -m arena.runtimes``), and a bot's files
  are matched to a row by the row's own ``requires`` and ``single_files``.
- The bounds of what authors and organisers may ask for: the challenge and version-test
  inputs read them from the services that enforce them, and the sequential test's rule
  (``SprtParameters``) is checked by constructing one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.runtimes import RUNTIMES, debian_packages, runtime_of_files

ROOT = Path(__file__).resolve().parents[1]
#: The files that install what the project needs from Debian.
INSTALLERS = ("Makefile", "Dockerfile")
#: Packages a runtime row names that the sandbox itself needs too, stated as its layers'
#: (bubblewrap, util-linux, Debian's python3 and its seccomp binding): the interpreter the
#: python row runs is the sandbox's own.
SANDBOX_PACKAGES = {"python3"}


def stated_packages(text: str, packages: set[str]) -> set[str]:
    words = set(re.findall(r"[a-z0-9][a-z0-9.+-]*", text))
    return packages & words


@pytest.mark.parametrize("installer", INSTALLERS)
def test_no_installer_names_a_runtime_package_itself(installer):
    packages = set(debian_packages()) - SANDBOX_PACKAGES
    text = (ROOT / installer).read_text()
    # Comments may mention a tool by name; only what would be installed counts.
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))

    assert stated_packages(code, packages) == set(), (
        f"{installer} names runtime packages itself; read them from arena/runtimes.py"
    )
    assert "-m arena.runtimes" in code


def test_the_package_check_sees_a_second_statement():
    assert stated_packages("apt-get install -y rustc golang-go", {"rustc", "golang-go"}) == {
        "rustc",
        "golang-go",
    }


def test_the_runtime_module_prints_every_rows_packages():
    every = {package for row in RUNTIMES.values() for package in row.packages}
    assert set(debian_packages()) == every
    assert len(debian_packages()) == len(every)


@pytest.mark.parametrize(
    ("names", "runtime"),
    [
        (["strategy.py"], "python"),
        (["bot.cpp"], "cpp"),
        (["main.rs"], "rust"),
        (["bot.go"], "go"),
        (["Bot.java"], "java"),
        (["bot.jar"], "java"),
        (["bot.js"], "javascript"),
        (["bot"], "executable"),
        (["a.out"], "executable"),
        (["bot.py", "helpers.py", "data.json"], "python"),
        (["bot.cpp", "json.hpp"], "cpp"),
        (["main.rs", "Cargo.toml"], "rust"),
        (["go.mod", "main.go"], "go"),
        (["bot.js", "package.json"], "javascript"),
        (["README.md", "notes.txt"], "executable"),
    ],
)
def test_a_bots_runtime_is_guessed_from_the_rows_own_files(names, runtime):
    assert runtime_of_files(names).name == runtime


def test_every_row_is_guessed_from_a_file_it_takes_alone_or_one_after_it_in_the_table():
    rows = list(RUNTIMES)
    for row in RUNTIMES.values():
        for suffix, stored_as in row.single_files:
            name = stored_as or f"bot{suffix}"
            guessed = runtime_of_files([name]).name
            # Rows that take the same suffix (python, pypy, ...) go to the first of them.
            assert guessed == row.name or rows.index(guessed) < rows.index(row.name)
