"""Launching a version: its launcher, its code in this worker's cache, the server's limits,
and this machine's sandbox as settings configure it.

The sandbox itself (``bots.sandbox``), the runner and the referee know nothing of Django:
what settings say reaches them from here, as arguments.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from django.conf import settings

from ..models import BotVersion
from ..referee import Limits
from ..runner import BotLauncher, BuiltinLauncher
from ..sandbox import Sandbox, SandboxConfig, SandboxLimits, SandboxUnsafe, probe_sandbox
from .code_cache import cached_code_dir

logger = logging.getLogger(__name__)


def launcher_for(version: BotVersion, **sandbox_overrides: int) -> BotLauncher:
    """Built-in bots run as plain processes; uploaded ones only in the sandbox, once ready."""
    if version.builtin:
        return BuiltinLauncher(version.builtin)
    if version.status != BotVersion.Status.READY:
        raise ValueError(f"{version} is {version.status}, not ready to play")
    return uploaded_launcher(version, **sandbox_overrides)


def version_code_prepare(version: BotVersion) -> None:
    """Have an uploaded version's code in this worker's cache before a match claims it;
    ``CodeUnavailable`` (the match stays pending, the task retries) if no store has it."""
    if not version.builtin:
        version_code_dir(version)


def version_code_dir(version: BotVersion) -> Path:
    """The local folder of an uploaded version's code; ``CodeUnavailable`` if no store has it."""
    return cached_code_dir(version.content_hash)


def uploaded_launcher(version: BotVersion, **limit_overrides: int) -> BotLauncher:
    """The sandboxed launcher of an uploaded version; ``SandboxUnsafe`` if the machine's
    sandbox is below the safe level."""
    if version.builtin:
        raise ValueError(f"{version} is built in, not uploaded")
    sandbox = current_sandbox()
    if not sandbox.report.safe:
        raise SandboxUnsafe(sandbox.report.reason)
    limits = sandbox_limits(**limit_overrides)
    return sandbox.launcher(version_code_dir(version), limits=limits)


def server_limits() -> Limits:
    return Limits(
        decision_seconds=settings.BAIZE_DECISION_TIMEOUT,
        start_seconds=settings.BAIZE_BOT_START_TIMEOUT,
        time_bank_seconds=settings.BAIZE_TIME_BANK_SECONDS,
    )


def sandbox_limits(**overrides: int) -> SandboxLimits:
    """The limits from settings, with per-tournament ``overrides`` (``SandboxLimits`` fields)."""
    return SandboxLimits(**{**settings.BAIZE_SANDBOX_LIMITS, **overrides})


def sandbox_config() -> SandboxConfig:
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
