"""The tournament maths is pure: formats, brackets, sets, standings and ratings import no
Django, no Celery and nothing that does I/O, so they run (and are tested) on their own."""

from __future__ import annotations

import pytest

from tests.test_layers import ROOT, imported_modules

PURE = [
    "tournaments/formats.py",
    "tournaments/brackets.py",
    "tournaments/duplicate.py",
    "tournaments/standings.py",
    "tournaments/ratings.py",
    "tournaments/simulation.py",
]
ALLOWED_THIRD_PARTY = {"openskill"}


@pytest.mark.parametrize("module", PURE)
def test_a_pure_core_imports_the_standard_library_the_rules_and_its_siblings_only(module):
    import sys

    offending = {
        name
        for name in imported_modules(ROOT / module)
        if name.split(".")[0] not in sys.stdlib_module_names
        and name.split(".")[0] not in ALLOWED_THIRD_PARTY
        and not name.startswith(("games.rules", "tournaments.", "bots.referee", "bots.builtin"))
    }
    assert not offending
