"""Running a launcher's program to its end, as the sandbox tests that probe from inside a
sandbox do: the one copy of the launch, the descriptors' closing and the slot's release."""

from __future__ import annotations

import os
import subprocess

from arena.runner import LaunchSpec

#: A Python bot that runs the executable named by its first argument from its folder, with
#: the rest: how the native probes and bots run as an uploaded Python bot is run.
EXEC_BOT = "import os, sys\nos.execv('/bot/' + sys.argv[1], sys.argv[1:])\n"


def run_to_end(spec: LaunchSpec, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``spec``'s program to its end and release what its launch reserved."""
    try:
        return subprocess.run(
            spec.argv,
            cwd=spec.cwd,
            env=dict(spec.env),
            pass_fds=spec.pass_fds,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        for fd in spec.pass_fds:
            os.close(fd)
        spec.on_close()
