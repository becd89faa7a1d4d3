"""Building a version at its check, for a runtime that builds (``arena.runtimes``).

The build runs once per sources and toolchain (``arena.builds.build_key``): a version whose
key was built before plays that build, on every worker, without building again. The built
files go to the same content-addressed store as uploaded code; the version records their
hash, the key, the build's log and the toolchain. A failed build rejects the version with
the compiler's first error, its whole (bounded) log kept for the owner.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q
from django.utils import timezone

from arena.builds import BuildResult, build_in_sandbox, build_key
from arena.runtimes import Runtime
from arena.text import storable_text

from ..models import BotVersion
from .code_cache import code_cache_put, code_publish
from .launch import build_limits, safe_sandbox, version_runtime_status, version_sources_dir
from .toolchains import runtime_toolchain

#: How many lines of the build's first error the rejection quotes.
ERROR_LINES = 6


def version_build(version: BotVersion) -> BotVersion:
    """The pending ``version`` with its toolchain recorded and, where its runtime builds,
    built (or its earlier build found); rejected if the build fails. ``CodeUnavailable``
    (``RuntimeUnavailable``) if this worker lacks the runtime or the sources, ``SandboxUnsafe``
    if its sandbox cannot run untrusted code (a build is untrusted code)."""
    sandbox = safe_sandbox()
    status = version_runtime_status(version)
    toolchain = "\n".join(runtime_toolchain(status))
    pending = BotVersion.objects.filter(id=version.pk, status=BotVersion.Status.PENDING)
    if not status.runtime.built:
        pending.update(toolchain=toolchain)
        return BotVersion.objects.get(id=version.pk)
    key = build_key(version.content_hash, status)
    earlier = (
        BotVersion.objects.filter(build_key=key)
        .exclude(Q(build_hash="") | Q(id=version.pk))
        .values_list("build_hash", "build_log")
        .first()
    )
    if earlier is not None:
        build_hash, log = earlier
        log = f"{REUSED}\n{log}"
    else:
        result = build_in_sandbox(
            sandbox, status.runtime, version_sources_dir(version), build_limits()
        )
        # The compiler quotes the bot's sources, which may hold any character: stored as
        # every database takes them (a NUL as ``\x00``).
        log = storable_text(build_log(status.runtime, toolchain.splitlines(), result))
        if result.code is None:
            pending.update(
                status=BotVersion.Status.REJECTED,
                status_reason=f"the build failed:\n{first_error(storable_text(result.log))}",
                build_log=log,
                build_key=key,
                toolchain=toolchain,
                checked_at=timezone.now(),
            )
            return BotVersion.objects.get(id=version.pk)
        code_publish(result.code)
        code_cache_put(result.code)
        build_hash = result.code.content_hash
    pending.update(build_hash=build_hash, build_key=key, build_log=log, toolchain=toolchain)
    return BotVersion.objects.get(id=version.pk)


#: What the log of a version says first when an earlier version's build of the same sources
#: and toolchain is played instead of building again.
REUSED = "Not built again: the same sources were built with the same toolchain before, so:"


def build_log(runtime: Runtime, toolchain: Sequence[str], result: BuildResult) -> str:
    """A version's build log: the command, the toolchain, whether it built and how long it
    took, then everything the build wrote (the compiler's warnings included), or that it
    wrote nothing."""
    outcome = "built" if result.code is not None else "failed"
    return "\n".join(
        [
            f"$ {runtime.build}",
            *(f"toolchain: {line}" for line in toolchain),
            f"{outcome} in {result.seconds:.1f} s, in the sandbox",
            "its output (the compiler's messages, warnings included):",
            result.log.rstrip("\n") or "(none: no warning, no error)",
        ]
    )


def first_error(log: str) -> str:
    """The lines of the log's first error (``file:line:col: error: ...`` and what follows
    it), or its last lines where no line says error."""
    lines = log.strip().splitlines()
    for index, line in enumerate(lines):
        if "error" in line.lower():
            return "\n".join(lines[index : index + ERROR_LINES])
    return "\n".join(lines[-ERROR_LINES:])
