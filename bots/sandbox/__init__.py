"""The sandbox for uploaded bots: another launcher for the runner (``bots.runner``).

``current_sandbox()`` probes this machine once per process (``probe.py``) and is what the
rest of Baize uses; ``Sandbox.launcher(code_dir)`` gives a ``BotLauncher`` for the referee.
The layers and the traps they avoid are in ``docs/sandbox.md`` and ``launcher.py``.
"""

from __future__ import annotations

import functools
import logging

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
    "current_sandbox",
    "probed_sandbox",
    "sandbox_config",
    "sandbox_limits",
    "sandbox_overrides_check",
]

logger = logging.getLogger(__name__)


def sandbox_limits(**overrides: int) -> SandboxLimits:
    """The limits from settings, with per-tournament ``overrides`` (``SandboxLimits`` fields)."""
    from django.conf import settings

    return SandboxLimits(**{**settings.BAIZE_SANDBOX_LIMITS, **overrides})


def sandbox_config() -> SandboxConfig:
    from django.conf import settings

    return SandboxConfig(
        state_dir=settings.BAIZE_SANDBOX_DIR,
        python=settings.BAIZE_SANDBOX_PYTHON,
        uid_base=settings.BAIZE_SANDBOX_UID_BASE,
        slots=settings.BAIZE_SANDBOX_SLOTS,
        limits=sandbox_limits(),
    )


@functools.cache
def probed_sandbox() -> Sandbox:
    """This machine's sandbox, probed on first use, silently (a command says it its way)."""
    return probe_sandbox(sandbox_config())


@functools.cache
def current_sandbox() -> Sandbox:
    """This machine's sandbox, probed on first use and logged with its level."""
    sandbox = probed_sandbox()
    log = logger.info if sandbox.report.safe else logger.warning
    log("%s", sandbox.report.describe())
    return sandbox
