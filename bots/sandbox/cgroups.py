"""A memory cgroup per sandbox slot: the kernel's accounting bounds all a bot can pin.

``prlimit --as`` bounds a bot's address space and the capped tmpfs bound its files, but
neither counts pipe buffers and kernel memory, and both are per process. A cgroup counts
every page a bot's processes charge (heap, tmpfs and ``/dev/shm`` pages, pipe buffers and
other kernel memory) against one limit, and the kernel's out-of-memory killer ends the bot,
not the worker or PostgreSQL, when it is reached.

The slots' cgroups live under the worker's own memory cgroup, in a folder of this instance
(``baize-<uid_base>``), one child per slot, reused from bot to bot: the slot's flock makes it
the holder's alone. A bot enters its cgroup before it becomes the slot's uid: the command
starts with a root shell that writes its own pid to ``cgroup.procs`` and execs the rest, so
no instruction of the bot ever runs outside it. cgroup v1 (the ``memory`` hierarchy) and v2
(``memory`` in the parent's ``cgroup.subtree_control``) are both handled; where neither
can be written, ``memory_cgroup_root`` says why and the other bounds stand alone.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

CGROUP_MOUNT = Path("/sys/fs/cgroup")
#: Writes the shell's own pid into the cgroup named by $0, then becomes the bot's command.
_ENTER_SCRIPT = 'echo $$ > "$0" && exec "$@"'


@dataclass(frozen=True)
class MemoryCgroups:
    """The folder holding one memory cgroup per slot of this instance."""

    root: Path
    version: int

    def slot_procs(self, index: int, limit_bytes: int) -> Path:
        """The ``cgroup.procs`` of slot ``index``, its limit set to ``limit_bytes``."""
        slot = self.root / f"slot-{index}"
        slot.mkdir(exist_ok=True)
        if self.version == 1:
            # With swap on, v1 counts memory+swap apart and refuses a memory limit above it:
            # lift that one, set the memory limit, then bound memory+swap by it too.
            memsw = slot / "memory.memsw.limit_in_bytes"
            with contextlib.suppress(OSError):
                _write(memsw, -1)
            _write(slot / "memory.limit_in_bytes", limit_bytes)
            with contextlib.suppress(OSError):
                _write(memsw, limit_bytes)
        else:
            _write(slot / "memory.max", limit_bytes)
            with contextlib.suppress(OSError):
                _write(slot / "memory.swap.max", 0)
        return slot / "cgroup.procs"

    def describe(self) -> str:
        return f"ok (cgroup v{self.version} at {self.root})"


def enter_cgroup_argv(procs: Path, argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` run by a shell that has first put itself into the cgroup of ``procs``."""
    return ("/bin/sh", "-c", _ENTER_SCRIPT, str(procs), *argv)


def memory_cgroup_root(uid_base: int) -> tuple[MemoryCgroups | None, str]:
    """This instance's slot cgroups, made if need be, or ``None`` and why they cannot be."""
    own = _own_memory_cgroup()
    if own is None:
        return None, "no memory cgroup is mounted"
    path, version = own
    root = path / f"baize-{uid_base}"
    try:
        root.mkdir(exist_ok=True)
        if version == 2:
            _write(path / "cgroup.subtree_control", "+memory")
            _write(root / "cgroup.subtree_control", "+memory")
    except OSError as error:
        return None, f"cannot make slot cgroups under {path}: {error.strerror or error}"
    return MemoryCgroups(root, version), ""


def _own_memory_cgroup() -> tuple[Path, int] | None:
    v2_path = None
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            return CGROUP_MOUNT / "memory" / path.lstrip("/"), 1
        if controllers == "":
            v2_path = CGROUP_MOUNT / path.lstrip("/")
    if v2_path is not None and "memory" in _read(CGROUP_MOUNT / "cgroup.controllers"):
        return v2_path, 2
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, value: object) -> None:
    path.write_text(f"{value}\n")


def memory_cgroups_remove(uid_base: int) -> None:
    """Remove this instance's slot cgroups that no process uses any more (a test run's)."""
    own = _own_memory_cgroup()
    if own is None:
        return
    root = own[0] / f"baize-{uid_base}"
    for folder in [*root.glob("slot-*"), root]:
        with contextlib.suppress(OSError):
            folder.rmdir()  # a cgroup is removed with rmdir; one still in use stays
