"""A PostgreSQL and a Redis of the test's own, to stop and start at will.

PostgreSQL runs as the ``postgres`` account from Debian's binaries on a data folder made by
``initdb``; Redis keeps nothing on disk, like the deployment's. Each listens on 127.0.0.1 on
a free port and is a child of the test, stopped by its process id.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
        return True
    return False


def _wait_for(port: int, up: bool, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while _answers(port) != up:
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not {'start' if up else 'stop'} in {seconds}s")
        time.sleep(0.1)


class PrivateRedis:
    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port)]
        command += ["--save", "", "--appendonly", "no", "--logfile", ""]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        _wait_for(self.port, True, "the private Redis")

    def kill(self) -> None:
        """As a crash: everything queued in it is gone."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class PrivatePostgres:
    def __init__(self) -> None:
        self.port = free_port()
        self.bin = Path(sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1])
        self.folder = Path(tempfile.mkdtemp(prefix="baize-faults-pg-"))
        self.process: subprocess.Popen | None = None
        account = pwd.getpwnam("postgres")
        self._as_postgres = ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}"]
        self._as_postgres += ["--init-groups", "--"]
        os.chown(self.folder, account.pw_uid, account.pw_gid)
        subprocess.run(
            [*self._as_postgres, self.bin / "initdb", "-D", self.folder / "data", "-A", "trust"]
            + ["-U", "postgres", "--no-sync"],
            check=True,
            capture_output=True,
        )

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        command = [*self._as_postgres, self.bin / "postgres", "-D", self.folder / "data"]
        command += ["-p", str(self.port), "-k", self.folder, "-c", "listen_addresses=127.0.0.1"]
        command += ["-c", "fsync=off", "-c", "max_connections=200"]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        self.process = subprocess.Popen(command, **quiet)
        _wait_for(self.port, True, "the private PostgreSQL")
        time.sleep(0.5)  # the port opens a moment before connections are accepted

    def stop(self) -> None:
        """A fast shutdown: open connections are cut, running transactions rolled back."""
        if self.process is not None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=60)
            self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
