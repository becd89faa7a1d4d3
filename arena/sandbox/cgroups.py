"""Cgroups per sandbox slot: a memory bound, a freezer and CPU accounting for all a bot runs.

``prlimit --as`` bounds a bot's address space and the capped tmpfs bound its files, but
neither counts pipe buffers and kernel memory, and both are per process. A memory cgroup
counts every page a bot's processes charge (heap, tmpfs and ``/dev/shm`` pages, pipe buffers
and other kernel memory) against one limit, and the kernel's out-of-memory killer ends the
bot, not the worker or PostgreSQL, when it is reached. The freezer stops every task of the
slot at once and the CPU accounting counts them all, however many the bot forked and
however it detached: the referee lets only the bot to move run and charges it its own CPU
time (``control.py``).

The slots' cgroups live under the worker's own cgroup of each controller, in a folder of
this instance (``baize-<uid_base>``), one child per slot, reused from bot to bot: the slot's
flock makes it the holder's alone. A bot enters its cgroups before it becomes the slot's
uid: the command starts with a root shell that writes its own pid to each ``cgroup.procs``
(one per cgroup v1 hierarchy, one in v2) and execs the rest, so no instruction of the bot
ever runs outside them. Each controller the host does not let the worker use is left out,
with the reason: memory then stands on the other bounds, freezing and CPU time fall back to
the slot's uid (``control.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .control import (
    CgroupCpuMeter,
    CgroupFreezer,
    SlotControl,
    UidCpuMeter,
    UidFreezer,
)

CGROUP_MOUNT = Path("/sys/fs/cgroup")
#: The cgroup v1 controllers a slot uses, by name; in v2 the same three are the memory
#: controller, ``cgroup.freeze`` and ``cpu.stat``, present in every non-root cgroup.
CONTROLLERS = ("memory", "freezer", "cpuacct")
#: Each version's freezer file, and what it says of a cgroup that is not frozen.
_FREEZER_FILES = (("freezer.state", "THAWED"), ("cgroup.freeze", "0"))
#: Writes the shell's own pid into each ``cgroup.procs`` given before ``--``, then becomes
#: the bot's command.
_ENTER_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


@dataclass(frozen=True)
class SlotCgroups:
    """This instance's folder of slot cgroups for each controller the host lets it use."""

    version: int
    #: Controller name (``CONTROLLERS``) -> the folder of this instance's slot cgroups.
    roots: Mapping[str, Path]

    @property
    def memory(self) -> bool:
        return "memory" in self.roots

    def slot_folder(self, controller: str, index: int) -> Path | None:
        root = self.roots.get(controller)
        return None if root is None else root / f"slot-{index}"

    def prepare(self, index: int, limit_bytes: int) -> tuple[Path, ...]:
        """The ``cgroup.procs`` files a bot of slot ``index`` enters, one per hierarchy, its
        memory limit set to ``limit_bytes`` and its freezer thawed."""
        folders = {}
        for controller in self.roots:
            folder = self.slot_folder(controller, index)
            folder.mkdir(exist_ok=True)
            folders[folder] = controller
        if self.memory:
            self._limit_memory(self.slot_folder("memory", index), limit_bytes)
        if "freezer" in self.roots:
            # The previous holder may have died with the slot frozen: its leftovers, already
            # sent SIGKILL by the slot's sweep, end once thawed.
            freezer = CgroupFreezer.of(self.slot_folder("freezer", index), self.version)
            freezer.thaw()
            freezer.close()
        return tuple(folder / "cgroup.procs" for folder in folders)

    def _limit_memory(self, slot: Path, limit_bytes: int) -> None:
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

    def control(self, index: int, uid: int) -> SlotControl:
        """Freeze, thaw and CPU time of slot ``index``: by its cgroups, by its uid where the
        host offers no freezer or accounting cgroup."""
        freezer_folder = self.slot_folder("freezer", index)
        meter_folder = self.slot_folder("cpuacct", index)
        return SlotControl(
            UidFreezer(uid)
            if freezer_folder is None
            else CgroupFreezer.of(freezer_folder, self.version),
            UidCpuMeter(uid)
            if meter_folder is None
            else CgroupCpuMeter.of(meter_folder, self.version),
        )


def uid_control(uid: int) -> SlotControl:
    """Freeze, thaw and CPU time of a slot by its uid alone (a host without slot cgroups)."""
    return SlotControl(UidFreezer(uid), UidCpuMeter(uid))


def enter_cgroup_argv(procs: tuple[Path, ...], argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` run by a shell that has first put itself into the cgroups of ``procs``."""
    return ("/bin/sh", "-c", _ENTER_SCRIPT, "baize-enter", *map(str, procs), "--", *argv)


def slot_cgroups(uid_base: int) -> tuple[SlotCgroups | None, dict[str, str]]:
    """This instance's slot cgroups, made if need be, and why each missing controller is."""
    own = _own_cgroups()
    missing: dict[str, str] = {}
    if own is None:
        return None, dict.fromkeys(CONTROLLERS, "no cgroup is mounted")
    version, bases = own
    roots = {}
    for controller in CONTROLLERS:
        base = bases.get(controller)
        if base is None:
            missing[controller] = f"no {controller} cgroup is mounted"
            continue
        root = base / f"baize-{uid_base}"
        try:
            root.mkdir(exist_ok=True)
            if version == 2:
                _enable_v2(controller, base, root)
        except OSError as error:
            missing[controller] = f"cannot make slot cgroups under {base}: {_why(error)}"
            continue
        roots[controller] = root
    return (SlotCgroups(version, roots) if roots else None), missing


def _enable_v2(controller: str, base: Path, root: Path) -> None:
    """Make ``controller`` usable in the slots under ``root`` (cgroup v2)."""
    if controller == "memory":
        _write(base / "cgroup.subtree_control", "+memory")
        _write(root / "cgroup.subtree_control", "+memory")
    elif controller == "freezer" and not (root / "cgroup.freeze").exists():
        raise OSError(0, "this kernel's cgroup v2 has no cgroup.freeze")
    elif controller == "cpuacct" and not (root / "cpu.stat").exists():
        raise OSError(0, "this kernel's cgroup v2 has no cpu.stat")


def _own_cgroups(pid: int | str = "self") -> tuple[int, dict[str, Path]] | None:
    """The version and this process's own cgroup folder per controller, or None; those of
    process ``pid``, as this process's mounts show them, when it is given."""
    text = Path(f"/proc/{pid}/cgroup").read_text()
    lines = [line.split(":", 2) for line in text.splitlines()]
    if (CGROUP_MOUNT / "cgroup.controllers").exists():
        path = next((path for _, names, path in lines if names == ""), None)
        if path is None:
            return None
        folder = CGROUP_MOUNT / path.lstrip("/")
        return 2, dict.fromkeys(CONTROLLERS, folder)
    mounts = _v1_mounts()
    bases = {}
    for _, names, path in lines:
        for controller in CONTROLLERS:
            if controller in names.split(",") and controller in mounts:
                bases[controller] = _v1_folder(mounts[controller], path)
    return (1, bases) if bases else None


def _v1_mounts() -> dict[str, tuple[str, Path]]:
    """Each v1 controller's mount: the folder of its hierarchy the mount shows, and where.
    On a host that is ``/`` at ``/sys/fs/cgroup/memory``; in a container, the container's
    own cgroup (``/docker/<id>``) at the same place."""
    mounts = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, tail = line.partition(" - ")
        kind, _, options = tail.split(" ", 2)
        if kind != "cgroup":
            continue
        root, mount_point = fields.split()[3:5]
        for controller in CONTROLLERS:
            if controller in options.split(","):
                mounts[controller] = (root, Path(mount_point))
    return mounts


def _v1_folder(mount: tuple[str, Path], own: str) -> Path:
    """Where this process's cgroup ``own`` is under the controller's mount."""
    root, mount_point = mount
    if root != "/" and (own == root or own.startswith(root.rstrip("/") + "/")):
        own = own[len(root) :]
    return mount_point / own.lstrip("/")


def _why(error: OSError) -> str:
    return error.strerror or str(error)


def _write(path: Path, value: object) -> None:
    path.write_text(f"{value}\n")


def slot_cgroups_remove(uid_base: int) -> None:
    """Remove this instance's slot cgroups that no process uses any more (a test run's)."""
    for folder in own_slot_folders(uid_base):
        cgroup_remove(folder)


def own_slot_folders(uid_base: int) -> tuple[Path, ...]:
    """The slot cgroups of instance ``uid_base`` under this process's own cgroups, each
    hierarchy's, slots first and their folder last (the order they can be removed in)."""
    own = _own_cgroups()
    if own is None:
        return ()
    folders: list[Path] = []
    for base in sorted(set(own[1].values())):
        root = base / f"baize-{uid_base}"
        if root.is_dir():
            folders += [*sorted(root.glob("slot-*")), root]
    return tuple(folders)


def process_slot_folders(pid: int, uid_base: int, index: int) -> tuple[Path, ...]:
    """The cgroups of slot ``index`` of instance ``uid_base`` that process ``pid`` is in, one
    per hierarchy (wherever the instance that made them ran); none when it is in no such
    slot, or has ended."""
    try:
        found = _own_cgroups(pid)
    except OSError:
        return ()
    if found is None:
        return ()
    return tuple(
        sorted(
            folder
            for folder in set(found[1].values())
            if folder.name == f"slot-{index}" and folder.parent.name == f"baize-{uid_base}"
        )
    )


def cgroup_thaw(folder: Path) -> bool:
    """Thaw the freezer of cgroup ``folder`` (v1 ``freezer.state``, v2 ``cgroup.freeze``);
    whether it was frozen. A folder of another hierarchy has no freezer: False."""
    for name, thawed in _FREEZER_FILES:
        state = folder / name
        try:
            was = state.read_text().strip()
        except OSError:
            continue
        if was == thawed:
            return False
        _write(state, thawed)
        return True
    return False


def cgroup_remove(folder: Path) -> bool:
    """Remove cgroup ``folder`` if no process is in it and it has no child; whether it went."""
    try:
        folder.rmdir()  # a cgroup is removed with rmdir; one still in use stays
    except OSError:
        return False
    return True
