"""The tournament maths is pure: configurations, formats and their planners, Swiss pairing,
brackets, sets, standings, ratings, the sequential test, the ladder's matchmaking and the
simulations import no Django, no Celery and no I/O of their own, so they run on their own."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = [
    "tournaments/config.py",
    "tournaments/formats.py",
    "tournaments/planning.py",
    "tournaments/brackets.py",
    "tournaments/duplicate.py",
    "tournaments/standings.py",
    "tournaments/ratings/maths.py",
    "tournaments/swiss.py",
    "tournaments/sprt.py",
    "tournaments/bounds.py",
    "ladder/matchmaking.py",
    "ops/ranking_simulation.py",
    "ops/ladder_simulation.py",
    "ops/sprt_simulation.py",
]
#: The ratings and matching libraries (pure maths), the pure parts of the layers below (the
#: sandbox's limit ranges a configuration is checked against among them), and the pure
#: tournament maths and matchmaking the simulations play with; and the refusals every layer
#: raises (``errors``, pure Python).
ALLOWED = (
    "errors",
    "openskill",
    "networkx",
    "games.rules",
    "games.confidence",
    "arena.sandbox.launcher",
    "arena.referee",
    "arena.builtin",
    "ladder.matchmaking",
    "tournaments.duplicate",
    "tournaments.ratings.maths",
    "ops.ranking_simulation",
    "tournaments.sprt",
    "tournaments.bounds",
)


def absolute_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", PURE)
def test_a_pure_core_imports_the_standard_library_and_pure_modules_only(module):
    offending = {
        name
        for name in absolute_imports(ROOT / module)
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith(ALLOWED)
    }
    assert not offending
