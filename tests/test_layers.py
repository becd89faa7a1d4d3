"""The layers point one way: config -> web -> ladder -> tournaments -> matches -> bots -> games."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["games", "bots", "matches", "tournaments", "ladder", "web", "config"]
PROJECT = set(LAYERS)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def python_files(package: str) -> list[Path]:
    return [p for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts]


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_the_layers_below_it(layer):
    above = set(LAYERS[LAYERS.index(layer) + 1 :])
    offending = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_files(layer)
        for name in imported_modules(path)
        if name.split(".")[0] in above
    }
    assert not offending


def test_the_rules_engines_import_only_the_standard_library():
    offending = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_files("games/rules")
        for name in imported_modules(path)
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("games.rules")
    }
    assert not offending


@pytest.mark.parametrize(
    "module",
    [
        "games/replay.py",
        "games/events.py",
        "games/confidence.py",
        "tournaments/formats.py",
        "tournaments/standings.py",
        "tournaments/sprt.py",
    ],
)
def test_the_pure_cores_import_no_django(module):
    names = imported_modules(ROOT / module)
    assert not {
        name for name in names if name.split(".")[0] in {"django", "celery", "rest_framework"}
    }
