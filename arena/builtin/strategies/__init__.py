"""Strategies of the built-in bots: one module per strategy, each with ``choose``.

``choose(observation: dict, rng: random.Random) -> dict`` returns one of
``observation["legal_actions"]``. Strategies use the standard library only and import no
other strategy, so each runs inside ``main.py`` and in-process alike.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def load(name: str) -> Callable:
    """The ``choose`` function of the strategy module ``name``."""
    if not name.isidentifier() or name.startswith("_"):
        raise ValueError(f"not a strategy name: {name!r}")
    return importlib.import_module(f"{__name__}.{name}").choose
