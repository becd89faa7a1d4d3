"""The rules engine type-checks: ``mypy games/rules`` with the settings of pyproject.toml.

Run here so that ``make test``, and CI with it, fails on a type error, not only ``make lint``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_rules_engine_passes_mypy():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "games/rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"mypy games/rules failed:\n{result.stdout}{result.stderr}"
