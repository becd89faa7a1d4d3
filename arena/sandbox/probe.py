"""Which sandbox layers work on this machine, and the level they add up to.

``probe_sandbox`` surveys the bots' interpreter (what it must see inside), has libseccomp
build the seccomp filter (``seccomp.py``; without Debian's ``python3-seccomp`` the layer is
missing and the level stays below ``FULL``), then starts a small probe bot through the real
sandbox command and reads what it observes from the inside: its uid and process limit, its
pid (1-3 in a PID namespace), whether ``/etc/passwd`` is visible, whether ``socket()`` is
refused. When the full command fails it retries with fewer layers to name the one that is
missing. Only ``FULL`` runs untrusted code; the Landlock fallback of ``docs/sandbox.md`` (for
hosts without user namespaces) is not built, so such a host reports ``LIMITS`` and refuses
uploads.
"""

from __future__ import annotations

import dataclasses
import enum
import fcntl
import functools
import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..runtimes import SANDBOX_PYTHON, Runtime, RuntimeStatus, runtime_statuses
from .cgroups import CONTROLLERS, SlotCgroups, enter_cgroup_argv, slot_cgroups, uid_control
from .control import SlotControl
from .launcher import (
    SANDBOX_ENVIRONMENT,
    FolderCopies,
    Program,
    SandboxConfig,
    SandboxLauncher,
    SandboxLimits,
    sandbox_argv,
)
from .libraries import needed_closure, shared_objects, stage_libraries
from .memory_folders import memory_root_check
from .procview import ProcView, proc_view_survey
from .reach import reachable_code_dir, runtime_dir
from .resident import Readable
from .seccomp import SeccompUnavailable, filter_program
from .slots import NoFreeSlot, Slot, acquire_slot

PROBE_SECONDS = 10.0
ROOT_LINKS = ("bin", "lib", "lib64", "sbin")
#: Folders in the standard library's folder that are no part of it, hidden from bots (an
#: empty folder bound over each): ``libpython3.11-dev``'s static libraries and build files
#: (25 MB), and Debian's ``dist-packages`` and ``site-packages``, where packages put files.
STDLIB_HIDDEN = ("config-*", "dist-packages", "site-packages")
#: The C and C++ runtime libraries, in every bot's base system: what a native bot may link
#: against (glibc's libraries, libstdc++ and libgcc_s), and what glibc loads by itself
#: (libgcc_s, to unwind a thread that exits).
C_RUNTIME = (
    "libc.so.6",
    "libm.so.6",
    "libmvec.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "libutil.so.1",
    "libresolv.so.2",
    "libanl.so.1",
    "libstdc++.so.6",
    "libgcc_s.so.1",
)

_SURVEY = (
    "import sysconfig\n"
    "print(sysconfig.get_path('stdlib'))\n"
    "print(sysconfig.get_path('platstdlib'))\n"
    "print(sysconfig.get_config_var('DESTSHARED') or '')\n"
)
PROBE_BOT = """\
import errno, json, os, resource, socket
try:
    socket.socket()
    refused = "allowed"
except OSError as error:
    refused = errno.errorcode.get(error.errno, str(error.errno))
print(json.dumps({
    "uid": os.getuid(),
    "pid": os.getpid(),
    "socket": refused,
    "sees_passwd": os.path.exists("/etc/passwd"),
    "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0],
}))
"""


class SandboxLevel(enum.IntEnum):
    NONE = 0
    #: Own uid, resource limits, parent-death signal; no namespaces, no filter.
    LIMITS = 1
    #: And bubblewrap's namespaces and read-only filesystem; no seccomp filter.
    NAMESPACES = 2
    #: Every layer, the seccomp filter included.
    FULL = 3


SAFE_LEVEL = SandboxLevel.FULL


@dataclass(frozen=True)
class SandboxReport:
    level: SandboxLevel
    #: Layer name -> "ok" or why it does not work here.
    layers: dict[str, str]
    #: What bounds the memory a bot can pin, for the operator; no part of the level.
    memory: str = ""
    #: How the seat not to move is stopped and a decision charged; no part of the level.
    turns: str = ""
    #: The slot uids probed, first to last; no part of the level.
    uids: str = ""

    @property
    def safe(self) -> bool:
        return self.level >= SAFE_LEVEL

    @property
    def reason(self) -> str:
        """Why untrusted code is refused; empty when it is not."""
        if self.safe:
            return ""
        # One line: a layer's reason may hold a program's multi-line error output.
        missing = "; ".join(
            f"{name}: {' '.join(why.split())}" for name, why in self.layers.items() if why != "ok"
        )
        level, safe = self.level.name.lower(), SAFE_LEVEL.name.lower()
        return f"sandbox level {level} is below {safe} ({missing})"

    def describe(self) -> str:
        lines = [f"sandbox level: {self.level.name.lower()}"]
        if self.uids:
            lines.append(f"  uids: {self.uids}")
        lines += [f"  {name}: {why}" for name, why in self.layers.items()]
        if self.memory:
            lines.append(f"  memory: {self.memory}")
        if self.turns:
            lines.append(f"  turns: {self.turns}")
        if not self.safe:
            lines.append(f"uploaded bots are refused: {self.reason}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Sandbox:
    """The sandbox as probed on this machine: how to wrap a bot, and how safe it is."""

    config: SandboxConfig
    report: SandboxReport
    interpreter: str = ""
    mounts: tuple[str, ...] = ()
    symlinks: tuple[tuple[str, str], ...] = field(default=())
    #: One cgroup per slot and controller, where the host lets the worker make them.
    cgroups: SlotCgroups | None = None
    #: Constants in place of the host's moving ``/proc`` figures (``arena.sandbox.procview``).
    proc_view: ProcView | None = None
    #: The shared libraries of the base system (the interpreter's and its extension
    #: modules', the C and C++ runtime), as the loader opens them, and their staged folders.
    library_paths: tuple[str, ...] = ()
    libraries: tuple[tuple[str, str], ...] = ()
    #: Folders inside the mounts hidden from bots, each with an empty folder bound over it:
    #: (empty folder, target).
    hidden: tuple[tuple[str, str], ...] = ()

    def launcher(
        self,
        code_dir: Path,
        script: str = "bot.py",
        args: tuple[str, ...] = (),
        limits: SandboxLimits | None = None,
        program: Program | None = None,
    ) -> SandboxLauncher:
        return SandboxLauncher(self, Path(code_dir), script, args, limits, program)

    @property
    def memory_cgroup(self) -> bool:
        return self.cgroups is not None and self.cgroups.memory

    def runtimes(self) -> Mapping[str, RuntimeStatus]:
        """Every runtime row as this host has it (surveyed once per process)."""
        return runtime_statuses(self.interpreter, memory_cgroup=self.memory_cgroup)

    def runtime_program(self, runtime: Runtime) -> Program:
        """How ``runtime`` runs a bot here: its program by its real path (``/usr/bin/java``
        is a chain of links the sandbox does not hold), bound beside the row's folders, and
        the shared libraries they need beside the base system's."""
        program, *args = runtime.run
        if program == SANDBOX_PYTHON:
            program = self.interpreter
        elif not program.startswith("./"):
            program = os.path.realpath(program)
        binds = runtime.binds if program.startswith("./") else (*runtime.binds, program)
        shown = (*self.mounts, *binds)
        libraries = _row_libraries(tuple(binds), shown, self.library_paths, self._stage_root)
        return Program(
            (program, *args),
            binds,
            address_space=runtime.address_space_limit,
            libraries=libraries or self.libraries,
            warm=True,
        )

    @property
    def _stage_root(self) -> Path:
        return runtime_dir(self.config.uid_base) / "libraries"

    def readable(self, code_dir: Path, program: Program | None = None) -> tuple[Readable, ...]:
        """Every host path a bot of ``program`` (``None``: a Python script) from ``code_dir``
        can read in its sandbox, the folders it hides left out."""
        hidden = tuple(target for _, target in self.hidden)
        paths = [
            Readable(path, tuple(h for h in hidden if h.startswith(path.rstrip("/") + "/")))
            for path in self.mounts
        ]
        libraries = program.libraries if program is not None and program.libraries else ()
        paths += [Readable(source) for source, _ in libraries or self.libraries]
        if program is not None:
            paths += [Readable(path) for path in program.binds if path not in self.mounts]
        paths.append(Readable(str(code_dir)))
        if self.proc_view is not None:
            paths.append(Readable(str(self.proc_view.folder)))
        return tuple(paths)

    def runtime_launcher(
        self, code_dir: Path, runtime: Runtime, limits: SandboxLimits | None = None
    ) -> SandboxLauncher:
        """A bot of ``runtime`` from ``code_dir`` (its built files, or its sources)."""
        limits = limits or self.config.limits
        if runtime.processes and runtime.processes > limits.processes:
            limits = dataclasses.replace(limits, processes=runtime.processes)
        return self.launcher(code_dir, limits=limits, program=self.runtime_program(runtime))

    def command(
        self,
        slot: Slot,
        code_dir: Path,
        script_and_args: Sequence[str],
        limits: SandboxLimits | None,
        *,
        filter_fd: int | None,
        namespaces: bool = True,
        program: Program | None = None,
        folders: FolderCopies | None = None,
    ) -> tuple[str, ...]:
        limits = limits or self.config.limits
        argv = sandbox_argv(
            self.config,
            self.mounts,
            self.symlinks,
            self.interpreter,
            uid=slot.uid,
            code_dir=code_dir,
            script_and_args=script_and_args,
            limits=limits,
            filter_fd=filter_fd,
            namespaces=namespaces,
            proc_view=self.proc_view,
            program=program,
            libraries=self.libraries,
            hidden=self.hidden,
            folders=folders,
        )
        if self.cgroups is None:
            return argv
        procs = self.cgroups.prepare(slot.index, limits.memory_bytes)
        return enter_cgroup_argv(procs, argv)

    def slot_control(self, slot: Slot) -> SlotControl:
        """Freeze, thaw and CPU time of the bot in ``slot`` (``arena.runner.ProcessControl``)."""
        if self.cgroups is None:
            return uid_control(slot.uid)
        return self.cgroups.control(slot.index, slot.uid)


def probe_sandbox(config: SandboxConfig) -> Sandbox:
    """Survey, write the filter, run the probe bot; the sandbox with its level."""
    layers: dict[str, str] = {}
    layers["uid"] = _check_uid_switch(config)
    if layers["uid"] == "ok":
        # Before any slot is taken: taking one kills whatever runs under its uid.
        layers["uid"] = uid_range_check(config)
    interpreter, mounts, hidden, library_paths, layers["python"] = _survey_interpreter(
        config.python
    )
    stage_root = runtime_dir(config.uid_base) / "libraries"
    try:
        libraries = stage_libraries(library_paths, mounts, stage_root) if library_paths else ()
        hidden_binds = _hide(hidden, stage_root)
    except OSError as error:
        libraries, hidden_binds = (), ()
        layers["python"] = f"the interpreter's shared libraries could not be staged: {error}"
    layers["seccomp"] = _write_filter(config.filter_path, config.seccomp_python)
    layers["namespaces"] = "ok" if shutil.which(config.bwrap) else f"{config.bwrap} not found"
    # The folders bots see, copied where no lookup leaves a trace (arena.sandbox.memory_folders).
    layers["folders"] = memory_root_check() if config.folders_in_memory else "not in memory"
    cgroups, missing = _slot_cgroups(config) if layers["uid"] == "ok" else (None, {})
    memory, turns = _memory_and_turns(config, cgroups, missing)
    uids = f"{config.uid_base}-{config.uid_base + config.slots - 1} ({config.slots} slots)"
    sandbox = Sandbox(
        config,
        SandboxReport(SandboxLevel.NONE, layers, memory, turns, uids),
        interpreter,
        mounts,
        _root_links(),
        cgroups,
        proc_view_survey(runtime_dir(config.uid_base) / "proc-view"),
        library_paths,
        libraries,
        hidden_binds,
    )
    if layers["uid"] != "ok" or layers["python"] != "ok":
        return sandbox
    level = _run_probes(sandbox, layers)
    return dataclasses.replace(sandbox, report=dataclasses.replace(sandbox.report, level=level))


def _slot_cgroups(config: SandboxConfig) -> tuple[SlotCgroups | None, dict[str, str]]:
    """The slots' cgroups once a shell has been seen to enter them and the freezer and the
    accounting to answer; why each controller left out is."""
    cgroups, missing = slot_cgroups(config.uid_base)
    if cgroups is None:
        return None, missing
    try:
        slot = acquire_slot(config.lock_dir, config.uid_base, config.slots)
    except (NoFreeSlot, OSError) as error:
        return None, dict.fromkeys(CONTROLLERS, f"no slot to try a cgroup in: {error}")
    try:
        procs = cgroups.prepare(slot.index, config.limits.memory_bytes)
        subprocess.run(enter_cgroup_argv(procs, ("true",)), check=True, timeout=PROBE_SECONDS)
        control = cgroups.control(slot.index, slot.uid)
        try:
            control.freeze()
            control.thaw()
            control.cpu_seconds()
        finally:
            control.close()
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        why = f"a process cannot enter a slot cgroup: {error}"
        return None, dict.fromkeys(CONTROLLERS, why)
    finally:
        slot.release()
    return cgroups, missing


def _memory_and_turns(
    config: SandboxConfig, cgroups: SlotCgroups | None, missing: dict[str, str]
) -> tuple[str, str]:
    """The report's lines on what bounds a bot's memory and how turns are kept fair."""
    memory = config.limits.memory_bound(cgroup=cgroups is not None and cgroups.memory)
    if "memory" in missing:
        memory += f" ({missing['memory']})"
    control = uid_control(config.uid_base) if cgroups is None else cgroups.control(0, 0)
    turns = control.describe()
    fallbacks = "; ".join(
        f"{name}: {missing[name]}" for name in ("freezer", "cpuacct") if name in missing
    )
    return memory, turns + (f" ({fallbacks})" if fallbacks else "")


#: Steps between the uid bases ``uid_range_check`` suggests.
UID_BASE_STEP = 100_000


def uid_range_check(config: SandboxConfig) -> str:
    """ "ok", or which processes of another instance hold this instance's slot uids.

    A process of a slot uid whose slot this instance's lock folder does not hold belongs to
    another instance on the host (one with another temporary folder: another container, say).
    Sharing uids, the two would count each other's processes against each bot's process
    limit, and each would kill the other's bots when it sweeps a slot.
    """
    first = config.uid_base
    last = first + config.slots - 1
    by_uid = _live_processes_by_uid()
    foreign = {
        uid: pids
        for uid, pids in by_uid.items()
        if first <= uid <= last and not _slot_held(config.lock_dir, uid - first)
    }
    if not foreign:
        return "ok"
    shown = ", ".join(
        f"uid {uid}: pids {' '.join(map(str, pids[:5]))}" for uid, pids in foreign.items()
    )
    return (
        f"the slot uids {first}-{last} are in use by another Baize instance on this host"
        f" ({shown}; no slot of this instance holds them): give each instance a range of"
        f" its own, set BAIZE_SANDBOX_UID_BASE={_free_uid_base(config, by_uid)}"
    )


def _live_processes_by_uid() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            uid = entry.stat(follow_symlinks=False).st_uid
            stat = Path(f"/proc/{entry.name}/stat").read_bytes()
        except OSError:
            continue  # it ended while we looked
        if stat[stat.rfind(b")") + 2 :][:1] != b"Z":
            found.setdefault(uid, []).append(int(entry.name))
    return found


def _slot_held(lock_dir: Path, index: int) -> bool:
    try:
        fd = os.open(lock_dir / f"slot-{index}.lock", os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # drops the lock if this took it
    return False


def _free_uid_base(config: SandboxConfig, by_uid: dict[int, list[int]]) -> int:
    base = config.uid_base + UID_BASE_STEP
    while any(base <= uid < base + config.slots for uid in by_uid):
        base += UID_BASE_STEP
    return base


def _process_limit_hint(error: str, config: SandboxConfig) -> str:
    """What a namespace that cannot be made for want of processes most likely means."""
    if "Resource temporarily unavailable" not in error:
        return ""
    last = config.uid_base + config.slots - 1
    return (
        f" (the slot uid's process limit is taken by processes this instance cannot see:"
        f" most likely another Baize instance on this host, in another container, uses the"
        f" slot uids {config.uid_base}-{last}; give each instance a range of its own with"
        f" BAIZE_SANDBOX_UID_BASE, e.g. {config.uid_base + UID_BASE_STEP})"
    )


def _check_uid_switch(config: SandboxConfig) -> str:
    if os.geteuid() != 0:
        return "the runner is not root, so it cannot switch each bot to its own uid"
    for program in (config.setpriv, config.prlimit):
        if not shutil.which(program):
            return f"{program} not found (util-linux)"
    return "ok"


def _survey_interpreter(
    python: str,
) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...], str]:
    """The interpreter's real path, the paths bound whole (it and its standard library),
    the folders in them to hide, the shared libraries it and its extension modules need
    with the C and C++ runtime (``arena.sandbox.libraries``), and "ok" or a reason."""
    interpreter = os.path.realpath(python)
    try:
        survey = subprocess.run(
            (interpreter, "-I", "-S", "-B", "-c", _SURVEY),
            capture_output=True,
            text=True,
            timeout=PROBE_SECONDS,
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return interpreter, (), (), (), f"the bots' interpreter {python} does not run: {error}"
    stdlib, platstdlib, *extension_dirs = survey.stdout.splitlines()
    folders = tuple(dict.fromkeys(path for path in (stdlib, platstdlib) if path))
    hidden = tuple(
        str(path)
        for folder in folders
        for pattern in STDLIB_HIDDEN
        for path in sorted(Path(folder).glob(pattern))
        if path.is_dir() and not path.is_symlink()
    )
    objects = [interpreter]
    for folder in dict.fromkeys(path for path in extension_dirs if path):
        objects += shared_objects(folder) if os.path.isdir(folder) else ()
    library_paths = needed_closure(objects, C_RUNTIME)
    return interpreter, (interpreter, *folders), hidden, library_paths, "ok"


@functools.cache
def _row_libraries(
    binds: tuple[str, ...], shown: tuple[str, ...], base: tuple[str, ...], stage_root: Path
) -> tuple[tuple[str, str], ...]:
    """The staged library folders of a runtime row: the base system's libraries and those
    its program and the shared objects in its folders need; empty when it needs none
    beyond the base system's. Once per process and row (numpy and scipy hold thousands of
    files to look through)."""
    objects = [path for path in binds if os.path.isfile(path)]
    objects += [obj for path in binds if os.path.isdir(path) for obj in shared_objects(path)]
    needed = needed_closure(objects)
    if set(needed) <= set(base):
        return ()
    return stage_libraries((*base, *needed), shown, stage_root)


def _hide(hidden: Sequence[str], stage_root: Path) -> tuple[tuple[str, str], ...]:
    """``hidden`` folders with the empty folder bound over each."""
    if not hidden:
        return ()
    empty = stage_root / "empty"
    empty.mkdir(mode=0o755, parents=True, exist_ok=True)
    return tuple((str(empty), path) for path in hidden)


def _root_links() -> tuple[tuple[str, str], ...]:
    """The merged-/usr symlinks at the root (``/lib -> usr/lib``), recreated inside."""
    links = []
    for name in ROOT_LINKS:
        path = Path("/") / name
        if path.is_symlink():
            links.append((os.readlink(path), str(path)))
    return tuple(links)


def _write_filter(path: Path, python: str) -> str:
    """Build the filter with libseccomp (``arena.sandbox.seccomp``); "ok" or why not."""
    try:
        program = filter_program(python)
    except SeccompUnavailable as error:
        return f"no seccomp filter: {error}"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(program)
    partial.replace(path)  # atomic: a concurrent probe never reads half a filter
    return "ok"


def _run_probes(sandbox: Sandbox, layers: dict[str, str]) -> SandboxLevel:
    """Run the probe bot with all layers, then fewer, until one works; name what failed."""
    config = sandbox.config
    code_dir = _probe_bot_dir(config.state_dir)
    use_filter = layers["seccomp"] == "ok"
    use_namespaces = layers["namespaces"] == "ok"
    seen, error = _probe_run(sandbox, code_dir, use_filter, use_namespaces)
    if seen is None and use_namespaces and use_filter:
        layers["seccomp"] = f"bubblewrap did not load the filter: {error}"
        use_filter = False
        seen, error = _probe_run(sandbox, code_dir, use_filter, use_namespaces)
    if seen is None and use_namespaces:
        layers["namespaces"] = f"bubblewrap failed: {error}{_process_limit_hint(error, config)}"
        use_filter = use_namespaces = False
        seen, error = _probe_run(sandbox, code_dir, use_filter, use_namespaces)
    if seen is None:
        layers["uid"] = f"the probe bot did not run: {error}"
        return SandboxLevel.NONE
    return _judge(seen, layers, config, use_filter, use_namespaces)


def _judge(
    seen: dict,
    layers: dict[str, str],
    config: SandboxConfig,
    use_filter: bool,
    use_namespaces: bool,
) -> SandboxLevel:
    """The level that what the probe bot saw from the inside proves."""
    if seen["uid"] < config.uid_base or seen["nproc"] != config.limits.processes:
        layers["uid"] = f"the probe ran as uid {seen['uid']} with nproc {seen['nproc']}"
        return SandboxLevel.NONE
    if not use_namespaces:
        return SandboxLevel.LIMITS
    if seen["pid"] > 3 or seen["sees_passwd"]:
        layers["namespaces"] = "the probe bot saw the host's processes or files"
        return SandboxLevel.LIMITS
    if not use_filter:
        return SandboxLevel.NAMESPACES
    if seen["socket"] != "EPERM":
        layers["seccomp"] = f"socket() inside the sandbox gave {seen['socket']}, not EPERM"
        return SandboxLevel.NAMESPACES
    return SandboxLevel.FULL if layers["folders"] == "ok" else SandboxLevel.NAMESPACES


def _probe_bot_dir(state_dir: Path) -> Path:
    """A folder holding the probe bot, readable by the slot uids."""
    code_dir = state_dir / "probe"
    code_dir.mkdir(parents=True, exist_ok=True)
    code_dir.chmod(0o755)
    script = code_dir / "bot.py"
    if not script.exists() or script.read_text() != PROBE_BOT:
        partial = code_dir / f".bot.{os.getpid()}.tmp"
        partial.write_text(PROBE_BOT)
        partial.chmod(0o644)
        partial.replace(script)
    return code_dir


def _probe_run(
    sandbox: Sandbox, code_dir: Path, use_filter: bool, use_namespaces: bool
) -> tuple[dict | None, str]:
    """What the probe bot reported, or None and why it did not."""
    config = sandbox.config
    try:
        slot = acquire_slot(config.lock_dir, config.uid_base, config.slots)
    except (NoFreeSlot, OSError) as error:
        return None, str(error)
    filter_fd = os.open(config.filter_path, os.O_RDONLY | os.O_CLOEXEC) if use_filter else None
    argv = sandbox.command(
        slot,
        reachable_code_dir(code_dir, config.uid_base),
        ("bot.py",),
        None,
        filter_fd=filter_fd,
        namespaces=use_namespaces,
    )
    try:
        run = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=PROBE_SECONDS,
            cwd="/",
            env=dict(SANDBOX_ENVIRONMENT),
            pass_fds=() if filter_fd is None else (filter_fd,),
        )
    except (OSError, subprocess.SubprocessError) as error:
        return None, str(error)
    finally:
        if filter_fd is not None:
            os.close(filter_fd)
        slot.release()
    try:
        return json.loads(run.stdout), ""
    except ValueError:
        return None, (run.stderr.strip() or f"exit status {run.returncode}")[-500:]
