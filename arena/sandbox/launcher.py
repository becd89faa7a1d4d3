"""The sandbox launcher: the command that wraps one bot in every layer of the sandbox.

In order (``docs/sandbox.md``, "The layers, in order"): ``setpriv`` switches to the slot's
unprivileged uid with the parent-death signal set to KILL; ``prlimit`` sets the resource
limits; ``bwrap``, started as that uid (trap 2), unshares every namespace, forbids new user
namespaces, dies with its parent, shows a read-only minimal filesystem (the interpreter, its
libraries, the bot's own folder at ``/bot``) with a small private tmpfs, loads the seccomp
filter and runs the bot as the first process of its PID namespace; last ``python -I -S
-B``. All of it is argv: no ``preexec_fn`` (trap 3). The runner (``arena.runner.BotProcess``)
kills the process group and reaps; the slot's release sweeps its uid.

Before a bot starts, every file it will be able to read is made resident in the page cache
(``arena.sandbox.resident``), so that what one seating of a duplicate set reads leaves the
other nothing to time; and every folder it can look a name up in is bound from a copy in a
memory file system (``arena.sandbox.memory_folders``), which keeps no trace of a lookup.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..runner import BOT_ENVIRONMENT, LaunchSpec
from .memory_folders import LaunchFolders, MemoryFolders, NoMemoryFolder, memory_folders
from .procview import ProcView
from .reach import reachable_code_dir
from .resident import make_resident
from .scratch import PrivateFolders
from .slots import acquire_slot

if TYPE_CHECKING:
    from .probe import Sandbox

#: Where the bot's own folder appears inside the sandbox.
BOT_MOUNT = "/bot"
#: 512 MiB of address space leaves Python 14 threads with glibc's default arenas, 54 with
#: two (``docs/sandbox.md``, trap 7).
SANDBOX_ENVIRONMENT = {**BOT_ENVIRONMENT, "MALLOC_ARENA_MAX": "2"}
#: Given a folder to bind and the folders in it (relative paths) that other binds cover, the
#: folder to bind in its place (``arena.sandbox.memory_folders.LaunchFolders.folder``).
FolderCopies = Callable[[str, Sequence[str]], str]


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one sandboxed bot for one match (``prlimit`` and the tmpfs size)."""

    memory_bytes: int = 512 << 20
    cpu_seconds: int = 60
    processes: int = 32
    file_bytes: int = 16 << 20
    open_files: int = 64
    tmp_bytes: int = 16 << 20

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"sandbox limit {name} must be a positive integer, got {value}")

    def memory_bound(self, *, cgroup: bool) -> str:
        """What bounds the memory one bot can pin, layer by layer, for the probe's report."""
        mib = 1 << 20
        if cgroup:
            return (
                f"at most {self.memory_bytes // mib} MiB in all (heap, files in its tmpfs,"
                " pipe buffers, kernel memory), counted by its slot's memory cgroup; within"
                f" it {self.memory_bytes // mib} MiB of address space (prlimit) and"
                f" {self.tmp_bytes // mib} MiB each in /tmp and /dev/shm (capped tmpfs)"
            )
        return (
            f"at most {self.memory_bytes // mib} MiB of address space (prlimit), plus"
            f" {self.tmp_bytes // mib} MiB each in its /tmp and /dev/shm (capped tmpfs; every"
            " other filesystem it sees is read-only), plus pipe buffers (at most"
            f" {self.open_files} descriptors); no per-slot cgroup"
        )

    def prlimit_options(self, *, address_space: bool = True) -> tuple[str, ...]:
        """``address_space=False`` leaves the address space unlimited, for runtimes that reserve
        more than they use; the slot's memory cgroup bounds them instead."""
        return (
            f"--cpu={self.cpu_seconds}",
            *((f"--as={self.memory_bytes}",) if address_space else ()),
            f"--nproc={self.processes}",
            f"--fsize={self.file_bytes}",
            f"--nofile={self.open_files}",
            "--core=0",
            # No locked memory: a lock moves the host's Mlocked figure, a signal to others.
            "--memlock=0",
        )


#: The values a tournament may give each limit (``SandboxLimits`` fields), bounds included:
#: wide enough for any honest bot, narrow enough that one match cannot starve the worker.
LIMIT_OVERRIDE_RANGES: dict[str, tuple[int, int]] = {
    "memory_bytes": (64 << 20, 4 << 30),
    "cpu_seconds": (1, 3600),
    "processes": (4, 256),
    "file_bytes": (1 << 20, 1 << 30),
    "open_files": (16, 1024),
    "tmp_bytes": (1 << 20, 256 << 20),
}


def sandbox_overrides_check(overrides: Mapping[str, Any]) -> None:
    """``ValueError`` naming the first override that is no limit or out of its range."""
    for name, value in overrides.items():
        if name not in LIMIT_OVERRIDE_RANGES:
            raise ValueError(
                f"unknown sandbox limit {name!r}; known: {sorted(LIMIT_OVERRIDE_RANGES)}"
            )
        low, high = LIMIT_OVERRIDE_RANGES[name]
        # bool is an int to Python, never a limit.
        if type(value) is not int or not low <= value <= high:
            raise ValueError(
                f"sandbox limit {name} must be an integer from {low} to {high}, got {value!r}"
            )


@dataclass(frozen=True)
class SandboxConfig:
    """How this machine runs sandboxed bots: programs, uid range, state folder, limits."""

    state_dir: Path
    python: str = "/usr/bin/python3"
    uid_base: int = 2_000_000
    slots: int = 64
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    setpriv: str = "setpriv"
    prlimit: str = "prlimit"
    bwrap: str = "bwrap"
    #: The Python that has libseccomp's binding (Debian's ``python3-seccomp``), which
    #: builds the filter (``arena.sandbox.seccomp``).
    seccomp_python: str = "/usr/bin/python3"
    #: Make every file a bot can read resident before it starts (``arena.sandbox.resident``).
    #: Off only to show what it prevents (``tests/arena/test_sandbox_page_cache.py``).
    warm_files: bool = True
    #: Bind every folder a bot can look a name up in from its copy in a memory file system
    #: (``arena.sandbox.memory_folders``). Off only to show what it prevents
    #: (``tests/arena/test_sandbox_dentries.py``).
    folders_in_memory: bool = True

    def __post_init__(self) -> None:
        # Below 65536 live real accounts; a swept uid loses every process it has.
        if self.uid_base < 65536:
            raise ValueError(f"the sandbox uid base must be at least 65536, got {self.uid_base}")
        if self.slots < 1:
            raise ValueError(f"the sandbox needs at least one slot, got {self.slots}")

    @property
    def lock_dir(self) -> Path:
        # The uids are the machine's, so their locks must be too: with locks per checkout, two
        # projects (or a test run beside a worker) would hand out one uid and sweep each
        # other's bots.
        return Path(tempfile.gettempdir()) / f"baize-sandbox-slots-{self.uid_base}"

    @property
    def filter_path(self) -> Path:
        return self.state_dir / "seccomp.bpf"


class SandboxUnsafe(RuntimeError):
    """This machine's sandbox is below the level needed to run untrusted code."""


@dataclass(frozen=True)
class Program:
    """What runs inside the sandbox from ``/bot``, and what it needs beyond the base system."""

    argv: tuple[str, ...]
    #: Host paths bound read-only at the same place inside.
    binds: tuple[str, ...] = ()
    #: False: no address-space limit (the slot's memory cgroup bounds the program).
    address_space: bool = True
    #: ``(source, target)``: the folders of staged shared libraries the program needs, in
    #: place of the base system's (``arena.sandbox.libraries.stage_libraries``); empty: the
    #: base system's.
    libraries: tuple[tuple[str, str], ...] = ()
    #: Make what it can read resident before it starts: a bot. A build (which sees the whole
    #: of ``/usr`` and plays no deal) is not.
    warm: bool = False


@dataclass(frozen=True)
class SandboxLauncher:
    """An untrusted bot: ``python -I -S -B /bot/SCRIPT ARGS`` inside the sandbox, or the
    ``program`` of its runtime (``arena.runtimes``).

    ``code_dir`` is bound read-only at ``/bot``; it must be a folder the uploader cannot
    change (the content-addressed cache, ``bots.services.code_cache``).
    """

    sandbox: Sandbox
    code_dir: Path
    script: str = "bot.py"
    args: tuple[str, ...] = ()
    limits: SandboxLimits | None = None
    program: Program | None = None

    def launch_spec(self) -> LaunchSpec:
        if not self.sandbox.report.safe:
            raise SandboxUnsafe(self.sandbox.report.reason)
        config = self.sandbox.config
        slot = acquire_slot(config.lock_dir, config.uid_base, config.slots)
        try:
            filter_fd = os.open(config.filter_path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            slot.release()
            raise
        # A bot, not a build (which sees the whole of /usr and plays no deal).
        bot = self.program is None or self.program.warm
        copies: LaunchFolders | None = None
        try:
            code_dir = reachable_code_dir(self.code_dir, config.uid_base)
            if bot and config.folders_in_memory:
                copies = _memory_folders().launch()
            argv = self.sandbox.command(
                slot,
                code_dir,
                (self.script, *self.args),
                self.limits,
                filter_fd=filter_fd,
                program=self.program,
                folders=None if copies is None else copies.folder,
            )
            if config.warm_files and bot:
                # After the command, which writes the /proc constants it binds.
                readable = self.sandbox.readable(code_dir, self.program)
                make_resident(readable if copies is None else copies.readable(readable))
        except BaseException:
            if copies is not None:
                copies.release()
            os.close(filter_fd)
            slot.release()
            raise
        control = self.sandbox.slot_control(slot)
        folders = PrivateFolders()

        def release() -> None:
            folders.close()
            control.close()
            slot.release()
            if copies is not None:
                copies.release()  # the bot is gone: a sweep may remove what it alone used

        return LaunchSpec(
            argv,
            cwd="/",
            env=SANDBOX_ENVIRONMENT,
            pass_fds=(filter_fd,),
            on_close=release,
            control=control,
            empty_files=folders.empty,
        )

    def __str__(self) -> str:
        what = " ".join(self.program.argv) if self.program else self.script
        return f"sandbox:{self.code_dir.name}/{what}"


def _memory_folders() -> MemoryFolders:
    """This process's copies of the folders bots see; ``SandboxUnsafe`` where there is no
    memory file system for them (the probe says so too)."""
    try:
        return memory_folders()
    except (NoMemoryFolder, OSError) as error:
        raise SandboxUnsafe(f"the folders bots see cannot be copied in memory: {error}") from None


def sandbox_argv(
    config: SandboxConfig,
    mounts: Sequence[str],
    symlinks: Sequence[tuple[str, str]],
    interpreter: str,
    *,
    uid: int,
    code_dir: Path,
    script_and_args: Sequence[str],
    limits: SandboxLimits,
    filter_fd: int | None,
    namespaces: bool = True,
    proc_view: ProcView | None = None,
    program: Program | None = None,
    libraries: Sequence[tuple[str, str]] = (),
    hidden: Sequence[tuple[str, str]] = (),
    folders: FolderCopies | None = None,
) -> tuple[str, ...]:
    """The whole command line; ``namespaces=False`` (probing only) leaves out bubblewrap.
    ``proc_view`` replaces the host's moving ``/proc`` figures with constants. ``program``
    runs in place of the Python script (``script_and_args`` is then unused). ``libraries``
    (staged folder, target) are the base system's shared libraries, which a program's own
    replace; ``hidden`` (empty folder, target) hides folders inside the mounts. ``folders``
    gives the folder to bind in place of each folder bound (its copy in memory)."""
    privileges = (
        config.setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--pdeathsig=KILL",
        "--",
    )
    address_space = program is None or program.address_space
    resources = (config.prlimit, *limits.prlimit_options(address_space=address_space), "--")
    script, *args = script_and_args
    if not namespaces:
        python = (interpreter, "-I", "-S", "-B", str(code_dir / script), *args)
        return (*privileges, *resources, *python)
    binds = [(path, path) for path in mounts]
    binds += hidden
    if program is None:
        command = (interpreter, "-I", "-S", "-B", f"{BOT_MOUNT}/{script}", *args)
        binds += libraries
    else:
        command = program.argv
        binds += program.libraries or libraries
        # After the libraries: a build binds the whole of /usr over them.
        binds += [(path, path) for path in program.binds if path not in mounts]
    return (
        *privileges,
        *resources,
        *_bwrap_options(config, binds, symlinks, code_dir, limits, filter_fd, proc_view, folders),
        "--",
        *command,
    )


def _bwrap_options(
    config: SandboxConfig,
    binds: Sequence[tuple[str, str]],
    symlinks: Sequence[tuple[str, str]],
    code_dir: Path,
    limits: SandboxLimits,
    filter_fd: int | None,
    proc_view: ProcView | None,
    folders: FolderCopies | None = None,
) -> tuple[str, ...]:
    proc_binds = () if proc_view is None else proc_view.binds(limits.memory_bytes)
    source = _bound_from(folders, [*binds, (str(code_dir), BOT_MOUNT), *proc_binds])
    options = [
        config.bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        # No init of bubblewrap's beside the bot: one task fewer for every freeze and thaw
        # to wake, and the bot's end ends everything it left in the namespace.
        "--as-pid-1",
    ]
    for path, target in binds:
        options += ["--ro-bind", source(path, target), target]
    for target, link in symlinks:
        options += ["--symlink", target, link]
    options += ["--ro-bind", source(str(code_dir), BOT_MOUNT), BOT_MOUNT]
    options += ["--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    options += ["--proc", "/proc", "--dev", "/dev"]
    # After bubblewrap's own /proc: the constants in place of the host's moving figures.
    for path, target in proc_binds:
        options += ["--ro-bind", source(path, target), target]
    # Every filesystem the bot can write is capped: /dev/shm (otherwise a folder of /dev's
    # tmpfs, as large as the kernel allows) gets its own small tmpfs, and /dev and the root
    # tmpfs bubblewrap builds are made read-only once populated.
    options += ["--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm"]
    options += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", BOT_MOUNT]
    if filter_fd is not None:
        options += ["--seccomp", str(filter_fd)]
    return tuple(options)


def _bound_from(
    folders: FolderCopies | None, binds: Sequence[tuple[str, str]]
) -> Callable[[str, str], str]:
    """What to bind at ``target`` for host ``path``: a folder's copy (in which the folders
    other binds cover are left empty, for their mount points), else ``path`` itself."""
    targets = [target for _, target in binds]

    def source(path: str, target: str) -> str:
        if folders is None or not os.path.isdir(path):
            return path
        inside = target.rstrip("/") + "/"
        covered = [os.path.relpath(other, target) for other in targets if other.startswith(inside)]
        return folders(path, covered)

    return source
