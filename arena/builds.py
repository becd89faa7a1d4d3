"""Building a version's sources into what it plays, once, at upload, inside the sandbox.

The row's build command (``arena.runtimes``) runs as ``/bin/sh -c`` in the sandbox with limits
of its own (``BuildLimits``: CPU and wall time, memory, processes, file and output size, no
network, as every sandboxed program), on a writable copy of the sources in its private
``/tmp`` (a capped tmpfs: a build that fills it fails, and nothing outside is touched). The
files the row keeps come back as a tar stream on stdout; the compiler's messages on stderr are
the build log, kept bounded. Nothing here touches the database: ``bots.services.build`` stores the
result, content-addressed, so every worker plays the very same files and never builds again.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import signal
import subprocess
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .bot_code import BotCode, UploadRejected, safe_path
from .runtimes import BUILD_BINDS, Runtime, RuntimeStatus
from .sandbox.launcher import Program, SandboxLimits
from .sandbox.probe import Sandbox

#: What a build log keeps: its head, where the first error is, and its tail.
LOG_HEAD_BYTES = 48 << 10
LOG_TAIL_BYTES = 16 << 10
#: What the wall clock allows beyond twice the CPU limit (a busy host shares its CPUs, and
#: linking waits on the disk).
WALL_SLACK_SECONDS = 30


@dataclass(frozen=True)
class BuildLimits:
    cpu_seconds: int = 120
    memory_bytes: int = 2 << 30
    processes: int = 128
    #: The largest file the build may write, the tar of its outputs included.
    file_bytes: int = 128 << 20
    open_files: int = 256
    #: The writable /tmp the sources are copied into and built in.
    tmp_bytes: int = 512 << 20

    def sandbox_limits(self) -> SandboxLimits:
        return SandboxLimits(
            memory_bytes=self.memory_bytes,
            cpu_seconds=self.cpu_seconds,
            processes=self.processes,
            file_bytes=self.file_bytes,
            open_files=self.open_files,
            tmp_bytes=self.tmp_bytes,
        )


@dataclass(frozen=True)
class BuildResult:
    #: The built files; ``None`` when the build failed.
    code: BotCode | None
    log: str
    seconds: float


def build_key(content_hash: str, status: RuntimeStatus) -> str:
    """What a build is stored under: the sources and the toolchain's identity."""
    identity = "\n".join((content_hash, status.runtime.name, *status.versions))
    return hashlib.sha256(identity.encode()).hexdigest()


def build_script(runtime: Runtime) -> str:
    """The shell script the sandbox runs: copy, build (its output is the log), tar the rest."""
    outputs = " ".join(runtime.outputs)
    return (
        "set -e; mkdir /tmp/build; cp -R /bot/. /tmp/build/; cd /tmp/build;"
        f" ( {runtime.build} ) 1>&2;"
        f' set --; for f in {outputs}; do if [ -e "$f" ]; then set -- "$@" "$f"; fi; done;'
        ' if [ $# -eq 0 ]; then echo "the build made none of: ' + outputs + '" >&2; exit 1; fi;'
        ' tar -cf - -- "$@"'
    )


def build_in_sandbox(
    sandbox: Sandbox, runtime: Runtime, source_dir: Path, limits: BuildLimits
) -> BuildResult:
    """Build ``source_dir`` (stored sources the slot uids can read) for ``runtime``."""
    if runtime.build is None:
        raise ValueError(f"the {runtime.name} runtime builds nothing")
    program = Program(
        ("/bin/sh", "-c", build_script(runtime)),
        (*BUILD_BINDS, *runtime.binds),
        address_space=not sandbox.memory_cgroup,
    )
    launcher = sandbox.launcher(source_dir, limits=limits.sandbox_limits(), program=program)
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        returncode, timed_out = _run(launcher.launch_spec(), out, err, limits)
        seconds = time.monotonic() - started
        log = _bounded_log(err)
        if timed_out:
            return BuildResult(
                None, log + f"\nthe build took longer than {_wall(limits)} s", seconds
            )
        if returncode != 0:
            return BuildResult(None, log + f"\nthe build failed ({_exit(returncode)})", seconds)
        out.seek(0)
        try:
            code = read_build_output(out.read(), limits)
        except UploadRejected as error:
            return BuildResult(None, log + f"\nthe build's output is refused: {error}", seconds)
    return BuildResult(code, log, seconds)


def _wall(limits: BuildLimits) -> int:
    return 2 * limits.cpu_seconds + WALL_SLACK_SECONDS


def _exit(returncode: int) -> str:
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return f"exit status {returncode}"


def _run(spec, out, err, limits: BuildLimits) -> tuple[int, bool]:
    """Run the build to its end or its wall-clock limit; everything it started dies after."""
    try:
        process = subprocess.Popen(
            spec.argv,
            cwd=spec.cwd,
            env=dict(spec.env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            pass_fds=spec.pass_fds,
            start_new_session=True,
        )
    finally:
        for fd in spec.pass_fds:
            os.close(fd)
    timed_out = False
    try:
        returncode = process.wait(timeout=_wall(limits))
    except subprocess.TimeoutExpired:
        timed_out = True
        returncode = -signal.SIGKILL
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if spec.on_close is not None:
            spec.on_close()  # the slot's release sweeps whatever the build left running
    return returncode, timed_out


def _bounded_log(err) -> str:
    size = err.seek(0, os.SEEK_END)
    err.seek(0)
    if size <= LOG_HEAD_BYTES + LOG_TAIL_BYTES:
        return err.read().decode(errors="replace")
    head = err.read(LOG_HEAD_BYTES)
    err.seek(size - LOG_TAIL_BYTES)
    tail = err.read()
    cut = size - LOG_HEAD_BYTES - LOG_TAIL_BYTES
    return (head + f"\n[... {cut} bytes left out ...]\n".encode() + tail).decode(errors="replace")


def read_build_output(data: bytes, limits: BuildLimits) -> BotCode:
    """The files of the build's tar stream: regular files with safe paths, modes kept."""
    files: dict[str, bytes] = {}
    executables = set()
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            for member in archive:
                if member.isdir():
                    continue
                if not member.isfile():
                    raise UploadRejected("build_output", f"not a regular file: {member.name!r}")
                path = safe_path(member.name)
                reader = archive.extractfile(member)
                files[path] = reader.read() if reader else b""
                if member.mode & 0o111:
                    executables.add(path)
    except tarfile.TarError as error:
        raise UploadRejected("build_output", f"the build's output is no tar: {error}") from None
    if not files:
        raise UploadRejected("build_output", "the build kept no file")
    return BotCode(files, frozenset(executables))
