"""Launching a version: its launcher, its code in this worker's cache, the server's limits,
and this machine's sandbox as settings configure it.

The sandbox itself (``arena.sandbox``), the runner and the referee know nothing of Django:
what settings say reaches them from here, as arguments.
"""

from __future__ import annotations

import logging
import os
import platform
import threading
import time
from pathlib import Path

from django.conf import settings

from arena.bot_code import UploadRejected, read_code_folder, read_upload, zip_code
from arena.builds import BuildLimits, build_in_sandbox
from arena.home import HomeBuildFailed, home_launcher
from arena.referee import Limits
from arena.runner import BotLauncher, BuiltinLauncher, ScriptLauncher
from arena.runtimes import DEFAULT_RUNTIME, RuntimeStatus, runtime_named, runtime_of_files
from arena.sandbox import Sandbox, SandboxConfig, SandboxLimits, SandboxUnsafe, probe_sandbox

from ..models import BotVersion
from .bots import builtin_strategy_names
from .code_cache import CodeUnavailable, cached_code_dir, code_cache_put
from .toolchains import runtime_toolchain
from .uid_ranges import sandbox_uid_base
from .upload import upload_limits, upload_runtime

logger = logging.getLogger(__name__)


def launcher_for(
    version: BotVersion, *, bot_seed: int | None = None, **sandbox_overrides: int
) -> BotLauncher:
    """Built-in bots run as plain processes, their random generator seeded with ``bot_seed``
    (``None``: from the operating system); uploaded ones only in the sandbox, once ready."""
    if version.builtin:
        return BuiltinLauncher(version.builtin, bot_seed)
    if version.status != BotVersion.Status.READY:
        raise ValueError(f"{version} is {version.status}, not ready to play")
    return uploaded_launcher(version, **sandbox_overrides)


class RuntimeUnavailable(CodeUnavailable):
    """This worker lacks the version's runtime: another worker, or this one once its
    toolchain is installed, plays it (the task retries, as for code out of reach)."""


class SandboxNotReady(CodeUnavailable):
    """This process's sandbox is below the level uploaded code needs, for now: another
    worker, or this one once it probes full again, runs it (the task retries, as for code
    out of reach)."""


def version_code_prepare(version: BotVersion) -> None:
    """Have an uploaded version's sandbox, runtime and code on this worker before a match
    claims it; ``CodeUnavailable`` (the match stays pending, the task retries) if one is
    missing: ``SandboxNotReady`` for a sandbox below full."""
    if not version.builtin:
        try:
            safe_sandbox()
        except SandboxUnsafe as error:
            raise SandboxNotReady(str(error)) from None
        version_runtime_status(version)
        version_code_dir(version)


def version_runtime_status(version: BotVersion) -> RuntimeStatus:
    """The version's runtime as this worker has it; ``RuntimeUnavailable`` if it cannot run."""
    status = sandbox_for_uploads().runtimes()[runtime_named(version.runtime).name]
    if not status.available:
        raise RuntimeUnavailable(
            f"the {version.runtime} runtime is not on this worker: {status.missing}"
        )
    return status


def version_toolchain(version: BotVersion) -> list[str]:
    """What runs the version here, one line per tool: the toolchain its build recorded, or,
    for a runtime that builds nothing, this worker's."""
    if version.builtin:
        return [f"Python {platform.python_version()}"]
    if version.build_hash:
        return version.toolchain.splitlines()
    return list(runtime_toolchain(version_runtime_status(version)))


def version_code_dir(version: BotVersion) -> Path:
    """The local folder of the files an uploaded version plays (its build's, where its
    runtime builds); ``CodeUnavailable`` if no store has them."""
    return cached_code_dir(version.build_hash or version.content_hash)


def version_sources_dir(version: BotVersion) -> Path:
    """The local folder of an uploaded version's sources, as uploaded."""
    return cached_code_dir(version.content_hash)


def uploaded_launcher(version: BotVersion, **limit_overrides: int) -> BotLauncher:
    """The sandboxed launcher of an uploaded version; ``SandboxUnsafe`` if the machine's
    sandbox is below the safe level."""
    if version.builtin:
        raise ValueError(f"{version} is built in, not uploaded")
    sandbox = safe_sandbox()
    limits = sandbox_limits(**limit_overrides)
    if version.runtime == DEFAULT_RUNTIME:
        return sandbox.launcher(version_code_dir(version), limits=limits)
    runtime = runtime_named(version.runtime)
    return sandbox.runtime_launcher(version_code_dir(version), runtime, limits)


def safe_sandbox() -> Sandbox:
    """This machine's sandbox; ``SandboxUnsafe`` if it is below the level untrusted code needs."""
    sandbox = sandbox_for_uploads()
    if not sandbox.report.safe:
        raise SandboxUnsafe(sandbox.report.reason)
    return sandbox


#: A sandbox below full is probed again before uploaded code is refused, at most this often.
REFUSAL_REPROBE_SECONDS = 5.0


def sandbox_for_uploads() -> Sandbox:
    """This machine's sandbox, to run uploaded code in: one below full is probed again first
    (at most every ``REFUSAL_REPROBE_SECONDS``), since what kept it below may be gone. A
    worker's pool process learns so here, the worker itself on its own
    (``bots.worker_sandbox``)."""
    if not current_sandbox().report.safe:
        sandbox_probe_again(unless_within=REFUSAL_REPROBE_SECONDS)
    return current_sandbox()


def referee_limits(
    *, decision_seconds: float | None = None, time_bank_seconds: float | None = None
) -> Limits:
    """A match's time limits: the server's settings, with a tournament's (or a command's)
    ``decision_seconds`` and ``time_bank_seconds`` where given. The one place ``Limits`` are
    made from settings: the ladder, the upload check and home play the same clock."""
    return Limits(
        decision_seconds=decision_seconds or settings.BAIZE_DECISION_TIMEOUT,
        start_seconds=settings.BAIZE_BOT_START_TIMEOUT,
        time_bank_seconds=settings.BAIZE_TIME_BANK_SECONDS
        if time_bank_seconds is None
        else time_bank_seconds,
        match_seconds=settings.BAIZE_MATCH_WALL_SECONDS,
    )


def match_cpu() -> int | None:
    """The CPU this worker process pins its matches to (``BAIZE_PIN_MATCHES``), or None."""
    if not settings.BAIZE_PIN_MATCHES:
        return None
    allowed = sorted(os.sched_getaffinity(0))
    # Spread concurrent worker processes over the CPUs: one match, one CPU.
    return allowed[os.getpid() % len(allowed)]


def build_limits() -> BuildLimits:
    """The limits of a build at upload (``BAIZE_BUILD_LIMITS``)."""
    return BuildLimits(**settings.BAIZE_BUILD_LIMITS)


def sandbox_limits(**overrides: int) -> SandboxLimits:
    """The limits from settings, with per-tournament ``overrides`` (``SandboxLimits`` fields)."""
    return SandboxLimits(**{**settings.BAIZE_SANDBOX_LIMITS, **overrides})


def sandbox_config() -> SandboxConfig:
    """The sandbox as settings configure it, on this process's uid range
    (``bots.services.uid_ranges``)."""
    return SandboxConfig(
        state_dir=settings.BAIZE_SANDBOX_DIR,
        python=settings.BAIZE_SANDBOX_PYTHON,
        uid_base=sandbox_uid_base(),
        slots=settings.BAIZE_SANDBOX_SLOTS,
        limits=sandbox_limits(),
    )


class _Probe:
    """This process's latest probe of the sandbox: made on first use, again on demand."""

    def __init__(self) -> None:
        # The heartbeat's thread, the worker's keeper and the task may ask at once.
        self.lock = threading.Lock()
        self.sandbox: Sandbox | None = None
        self.at = 0.0
        self.logged = False

    def forked(self) -> None:
        # A pool process forked while another thread probed must not inherit the lock held.
        self.lock = threading.Lock()
        # Nor is its parent's probe its own: the parent may have found the sandbox full since
        # (and taken the sandboxed queue), so the first refusal here probes again at once.
        self.at = float("-inf")


_probe = _Probe()
os.register_at_fork(after_in_child=_probe.forked)


def probed_sandbox() -> Sandbox:
    """This machine's sandbox, probed on first use, silently (a command says it its way)."""
    with _probe.lock:
        if _probe.sandbox is None:
            _probe.sandbox, _probe.at = probe_sandbox(sandbox_config()), time.monotonic()
        return _probe.sandbox


def current_sandbox() -> Sandbox:
    """This machine's sandbox as last probed (on first use), logged with its level once."""
    sandbox = probed_sandbox()
    with _probe.lock:
        if not _probe.logged:
            _probe.logged = True
            _sandbox_log(sandbox)
    return sandbox


def sandbox_probe_again(*, unless_within: float = 0.0) -> Sandbox:
    """Probe the sandbox again, unless the last probe is less than ``unless_within`` seconds
    old; logged when its level changed."""
    with _probe.lock:
        if _probe.sandbox is not None and time.monotonic() - _probe.at < unless_within:
            return _probe.sandbox
        before = _probe.sandbox
        _probe.sandbox, _probe.at = probe_sandbox(sandbox_config()), time.monotonic()
        if before is None or before.report.level != _probe.sandbox.report.level:
            _sandbox_log(_probe.sandbox)
        return _probe.sandbox


def _sandbox_log(sandbox: Sandbox) -> None:
    log = logger.info if sandbox.report.safe else logger.warning
    log("%s", sandbox.report.describe())


def local_runtime(path: Path) -> str:
    """The runtime a local bot file or folder is most likely written for (the table's
    guess, ``runtime_of_files``, as for an upload)."""
    names = [path.name] if path.is_file() else [p.name for p in path.iterdir() if p.is_file()]
    return runtime_of_files(names).name


def local_sandboxed_launcher(path: Path, runtime_name: str) -> BotLauncher:
    """A local bot file or folder read, built and run in the sandbox exactly as an upload of
    it would be: what the server refuses is refused here (``UploadRejected``), and a build
    that fails raises ``BuildFailed`` with the compiler's log."""
    sandbox = probed_sandbox()  # silent: the command says why it cannot run, once
    if not sandbox.report.safe:
        raise SandboxUnsafe(sandbox.report.reason)
    runtime = upload_runtime(runtime_name)
    if path.is_dir():
        code = read_upload(
            "bot.zip", zip_code(read_code_folder(path)), upload_limits(runtime), runtime
        )
    else:
        code = read_upload(path.name, path.read_bytes(), upload_limits(runtime), runtime)
    folder = code_cache_put(code)
    status = sandbox.runtimes()[runtime.name]
    if not status.available:
        raise RuntimeUnavailable(f"the {runtime.name} runtime is not here: {status.missing}")
    if runtime.built:
        result = build_in_sandbox(sandbox, runtime, folder, build_limits())
        if result.code is None:
            raise BuildFailed(result.log)
        folder = code_cache_put(result.code)
    if runtime.name == DEFAULT_RUNTIME:
        return sandbox.launcher(folder, limits=sandbox_limits())
    return sandbox.runtime_launcher(folder, runtime, sandbox_limits())


class BuildFailed(Exception):
    """A local bot's build failed; the message is the build's log."""


class LocalBotUnplayable(Exception):
    """A local bot that cannot be played here; the message says why, in a line or (a failed
    build) with the build's log."""


def local_launcher(
    *,
    game_id: str,
    spec: str,
    sandboxed: bool,
    runtime: str | None = None,
    bot_seed: int | None = None,
) -> BotLauncher:
    """The bot ``spec`` names for a match of ``game_id`` on this machine: a file or folder of
    any runtime (``runtime``, else guessed from its files), run in the sandbox as an upload of
    it would be when ``sandboxed``, else built here and run as a plain process (a Python
    file or folder as it is, ``arena.home`` for the other runtimes); or
    the name of a built-in bot (``random``, ``heuristic``, a strategy such as
    ``snag_heuristic``), its random generator seeded with ``bot_seed`` (``None``: from the
    operating system). ``LocalBotUnplayable`` says why one cannot be played."""
    path = Path(spec)
    if path.exists():
        runtime = runtime or local_runtime(path)
        if sandboxed:
            return _local_sandboxed(path, runtime)
        if runtime != DEFAULT_RUNTIME:
            return _local_unsandboxed(path, runtime)
        script = path / "bot.py" if path.is_dir() else path
        if not script.is_file() or script.suffix != ".py":
            raise LocalBotUnplayable(
                f"no Python bot at {path} (a .py file, or a folder with bot.py)"
            )
        return ScriptLauncher(script)
    strategy = builtin_strategy_names(game_id).get(spec, spec)
    try:
        return BuiltinLauncher(strategy, bot_seed)
    except ValueError:
        known = sorted(builtin_strategy_names(game_id))
        raise LocalBotUnplayable(
            f"{spec!r} is neither a bot file or folder nor a built-in bot ({', '.join(known)})"
        ) from None


def _local_unsandboxed(path: Path, runtime: str) -> BotLauncher:
    """A local bot of any runtime built here and run as the author's own process
    (``arena.home``), its builds kept under ``BAIZE_VAR_DIR/home-builds``."""
    try:
        row = runtime_named(runtime)
    except KeyError as error:
        raise LocalBotUnplayable(str(error.args[0])) from None
    try:
        return home_launcher(
            path, row, python=settings.BAIZE_SANDBOX_PYTHON, builds=settings.VAR_DIR / "home-builds"
        )
    except UploadRejected as error:
        raise LocalBotUnplayable(f"the server would refuse {path}: {error}") from None
    except HomeBuildFailed as error:
        raise LocalBotUnplayable(f"the build of {path} failed:\n{error}") from None


def _local_sandboxed(path: Path, runtime: str) -> BotLauncher:
    try:
        return local_sandboxed_launcher(path, runtime)
    except SandboxUnsafe as error:
        # Only the reason is said: the probe's whole report is `manage.py sandbox`.
        raise LocalBotUnplayable(f"--sandbox cannot run here: {error}") from None
    except UploadRejected as error:
        raise LocalBotUnplayable(f"the server would refuse {path}: {error}") from None
    except CodeUnavailable as error:  # the runtime is missing here
        raise LocalBotUnplayable(str(error)) from None
    except BuildFailed as error:
        raise LocalBotUnplayable(f"the build of {path} failed:\n{error}") from None
