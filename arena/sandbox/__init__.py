"""The sandbox for uploaded bots: another launcher for the runner (``arena.runner``).

``probe_sandbox(config)`` probes this machine (``probe.py``); ``Sandbox.launcher(code_dir)``
gives a ``BotLauncher`` for the referee. Nothing here reads Django's settings: the rest of
Baize takes this machine's sandbox, configured from them, from ``bots.services.launch``
(``current_sandbox()``, probed on first use, and again while it is below full).
The layers and the traps they avoid are in ``docs/sandbox.md`` and ``launcher.py``.
"""

from __future__ import annotations

from .launcher import (
    LIMIT_OVERRIDE_RANGES,
    SandboxConfig,
    SandboxLauncher,
    SandboxLimits,
    SandboxUnsafe,
    sandbox_overrides_check,
)
from .probe import SAFE_LEVEL, Sandbox, SandboxLevel, SandboxReport, probe_sandbox
from .slots import NoFreeSlot

__all__ = [
    "LIMIT_OVERRIDE_RANGES",
    "SAFE_LEVEL",
    "NoFreeSlot",
    "Sandbox",
    "SandboxConfig",
    "SandboxLauncher",
    "SandboxLevel",
    "SandboxLimits",
    "SandboxReport",
    "SandboxUnsafe",
    "probe_sandbox",
    "sandbox_overrides_check",
]
