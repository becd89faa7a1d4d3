"""Bots at home without the sandbox: a local file or folder of any runtime, read as an upload
of it is read, built with this machine's own toolchain by the row's own build command, and
run by the row's own run command as the author's own process.

For an author's own code on their own machine, where no root, bubblewrap or seccomp is
needed: nothing is isolated and nothing is metered the server's way (no frozen opponent, no
CPU charge, no sandbox limits: a decision is timed by the wall clock). ``--sandbox`` plays it
as the server does. A build is kept by its sources' hash and the row, so playing again
builds nothing.
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .bot_code import BotCode, read_code_folder, read_upload, zip_code
from .runner import BOT_ENVIRONMENT, LaunchSpec
from .runtimes import SANDBOX_PYTHON, Runtime, UploadLimits

#: How long a build at home may take (the wall clock: the machine is the author's).
HOME_BUILD_SECONDS = 600


class HomeBuildFailed(Exception):
    """The build of a local bot failed; the message is its log."""


@dataclass(frozen=True)
class HomeLauncher:
    """A local bot run as a plain process, from its folder, by its row's run command."""

    folder: Path
    argv: tuple[str, ...]
    runtime: str
    name: str

    def launch_spec(self) -> LaunchSpec:
        return LaunchSpec(self.argv, str(self.folder), env=dict(BOT_ENVIRONMENT))

    def __str__(self) -> str:
        return f"{self.name} ({self.runtime}, unsandboxed: your own process, wall-clock time)"


def home_launcher(path: Path, runtime: Runtime, *, python: str, builds: Path) -> HomeLauncher:
    """``path`` (a file or a folder) as a bot of ``runtime``: read as an upload of it is
    (``UploadRejected`` for what the server would refuse), built in a folder of its own under
    ``builds`` where the row builds (``HomeBuildFailed`` with the log), and run by the row's
    run command, ``python`` standing for the sandbox's interpreter."""
    code = _read(path, runtime)
    folder = builds / f"{runtime.name}-{code.content_hash[:16]}"
    if not (folder / ".built").exists():
        _write(code, folder)
        if runtime.built:
            _build(runtime, folder)
        (folder / ".built").write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
    argv = tuple(python if word == SANDBOX_PYTHON else word for word in runtime.run)
    return HomeLauncher(folder, argv, runtime.name, path.name)


def _read(path: Path, runtime: Runtime) -> BotCode:
    # The author's own machine: no upload size limits beyond what a folder's reading checks.
    limits = UploadLimits(max_bytes=1 << 30, max_unpacked_bytes=1 << 30, max_files=100_000)
    if path.is_dir():
        return read_upload("bot.zip", zip_code(read_code_folder(path)), limits, runtime)
    return read_upload(path.name, path.read_bytes(), limits, runtime)


def _write(code: BotCode, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for relative, content in code.files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        if relative in code.executables:
            target.chmod(0o755)


def _build(runtime: Runtime, folder: Path) -> None:
    """The row's build command in ``folder``, as the sandbox runs it (``/bin/sh -c``), with
    this machine's toolchain and the bots' environment."""
    scratch = folder / ".tmp"
    scratch.mkdir(exist_ok=True)
    env = {**BOT_ENVIRONMENT, "HOME": str(scratch), "TMPDIR": str(scratch)}
    # In the sandbox a build's /tmp is its own (Go keeps its caches there); at home, so is
    # this folder's: another user's /tmp/go-cache would refuse this one.
    command = re.sub(r"(?<![\w.])/tmp(?=/|\s|$)", str(scratch), runtime.build)
    try:
        done = subprocess.run(
            ("/bin/sh", "-c", command),
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=HOME_BUILD_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise HomeBuildFailed(f"the build took longer than {HOME_BUILD_SECONDS} s") from None
    except OSError as error:
        raise HomeBuildFailed(f"the build could not start: {error}") from None
    log = (done.stdout + done.stderr).strip()
    missing = [output for output in runtime.outputs if not (folder / output).exists()]
    if done.returncode != 0 or len(missing) == len(runtime.outputs):
        why = f"exit status {done.returncode}" if done.returncode else f"no {', '.join(missing)}"
        raise HomeBuildFailed(f"{log}\nthe build failed ({why}): {command}".strip())
