"""The folders a sandboxed bot sees are copies in a memory file system, where a lookup leaves
nothing behind.

Looking up a name that does not exist leaves a negative dentry in the folder it was looked
up in, on a disk file system (ext4; overlayfs, and its layers, in a container): a later
lookup of the same name is faster (a ``stat`` took 1.6 µs against 5.1 µs here), and every
sandbox that binds the folder shares it. One seating of a duplicate set could so leave bits
for its twin, one a name of its choosing, in its own ``/bot`` or the standard library
(``docs/sandbox.md``, "What a seating can leave behind"). A tmpfs keeps none: a name not
found there is forgotten when the lookup ends, and a name found is always cached (its dentry
is the file), so a lookup takes as long whoever looked before (2.68 µs against 2.61 µs).

So every folder a bot's sandbox binds (its runtime's folders, the staged libraries, the
empty folders it hides others with, its own code at ``/bot``) is bound from a copy of it in
a tmpfs: made once per host and content (a copy is named by what its source holds: names,
inodes, sizes, times), shared by every sandbox that binds the same folder. Files keep their
modes and times (Python checks a ``.pyc`` against its source's time and size), minus the
set-user-ID and set-group-ID bits; a folder that another bind covers is left empty; links
stay links; sockets, pipes and devices are left out. The copies' pages are memory, and
``resident`` locks them against swap as it did the files they copy.

Each worker process holds a shared lock on every copy it uses, and lets it go once no
launch of its own has used it for ``IDLE_SECONDS``; a sweep removes the copies no process
holds (unused everywhere, or held by a worker that died). A source whose folders changed (a
package upgrade replaces files) is copied again: each use checks its folders' stamps, as
``resident`` does, and a new copy is made when they moved.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import os
import secrets
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .resident import Readable, stamps_changed

#: A copy no launch of this process used for this long is let go (a sweep may remove it).
IDLE_SECONDS = 600.0
#: A process sweeps the copies no one holds at its first use, then at most this often.
SWEEP_SECONDS = 60.0
#: The folder of the copies, in the memory file system.
FOLDER_NAME = "baize-sandbox-folders"
#: Changed when a copy's layout changes: an old copy is then never bound again.
_FORMAT = "1"
_SETID = stat.S_ISUID | stat.S_ISGID

#: (path, inode, mtime in ns, size) of a folder.
Stamp = tuple[str, int, int, int]


class NoMemoryFolder(RuntimeError):
    """No memory file system here where the copies can live, or their folder there is not
    this user's alone; the message says which, and what to do."""


def memory_root(candidates: Sequence[str] | None = None) -> Path:
    """The folder of the copies: in the first of ``candidates`` (the temporary folder, then
    ``/dev/shm``) that is a tmpfs from which programs may run; created, owned by this
    process's user and writable by it alone. ``NoMemoryFolder`` if there is none."""
    candidates = candidates or (tempfile.gettempdir(), "/dev/shm")
    seen = []
    for candidate in candidates:
        fstype, options = _mount_of(candidate)
        seen.append(
            f"{candidate}: {fstype or 'not found'}{', noexec' if 'noexec' in options else ''}"
        )
        if fstype == "tmpfs" and "noexec" not in options and os.path.isdir(candidate):
            try:
                return _own_folder(Path(candidate) / FOLDER_NAME)
            except OSError as error:  # not writable here: the next candidate may be
                seen[-1] += f", {error.strerror}"
    raise NoMemoryFolder(
        "no tmpfs without noexec for the copies of the folders bots see ("
        + "; ".join(seen)
        + "): set TMPDIR to one, or mount /dev/shm without noexec"
    )


def memory_root_check() -> str:
    """ "ok", or why there is no memory folder for the copies here (the probe's layer)."""
    try:
        memory_root()
    except NoMemoryFolder as error:
        return str(error)
    return "ok"


def _mount_of(path: str) -> tuple[str, set[str]]:
    """The file system type and the mount options of the mount ``path`` is on."""
    real = os.path.realpath(path)
    found = ("", "", set[str]())
    try:
        with open("/proc/self/mountinfo") as mounts:
            for line in mounts:
                left, _, right = line.partition(" - ")
                fields = left.split()
                point = fields[4].replace("\\040", " ")
                inside = real == point or real.startswith(point.rstrip("/") + "/")
                # The longest mount point holds the path; of two at one point, the later.
                if inside and len(point) >= len(found[0]):
                    found = (point, right.split()[0], set(fields[5].split(",")))
    except OSError:
        pass
    return found[1], found[2]


def _own_folder(path: Path) -> Path:
    try:
        path.mkdir(mode=0o755)
        os.chmod(path, 0o755)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise NoMemoryFolder(
            f"{path} is not a folder of uid {os.geteuid()} that others cannot write"
            f" (uid {info.st_uid}, mode {stat.filemode(info.st_mode)}): remove it"
        )
    if info.st_mode & 0o555 != 0o555:
        os.chmod(path, 0o755)  # bubblewrap, as a slot's uid, must find the copies in it
    return path


@dataclass(eq=False)
class _Copy:
    """A copy of one source folder in the memory folder, held (a shared lock) by this
    process while it may bind it."""

    source: str
    covered: tuple[str, ...]
    stamps: tuple[Stamp, ...]
    path: str
    lock: int
    #: Launches of this process whose bot may still run on it.
    users: int = 0
    used: float = 0.0
    #: False once the source changed: no launch binds it again.
    current: bool = True

    def stale(self) -> bool:
        return stamps_changed(self.stamps)


class MemoryFolders:
    """This process's copies in one memory folder, by source folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._copies: dict[tuple[str, tuple[str, ...]], _Copy] = {}
        self._old: list[_Copy] = []
        self._lock = threading.Lock()
        self._swept = -SWEEP_SECONDS

    def launch(self) -> LaunchFolders:
        """The copies of one launch, each held from its first use until ``release``."""
        return LaunchFolders(self)

    def use(self, source: str, covered: Sequence[str] = ()) -> _Copy:
        """The current copy of folder ``source`` with the folders ``covered`` (relative
        paths) left empty, made if there is none; counted as used until ``release``."""
        key = (source, tuple(sorted(covered)))
        now = time.monotonic()
        with self._lock:
            copy = self._copies.get(key)
            if copy is not None and copy.stale():
                copy.current = False
                self._old.append(self._copies.pop(key))
                copy = None
            if copy is None:
                copy = self._copies[key] = self._make(*key)
            copy.users += 1
            copy.used = now
            self._let_go(now)
        if now - self._swept >= SWEEP_SECONDS:
            self._swept = now
            sweep(self.root)
        return copy

    def copy_of(self, source: str) -> str | None:
        """The current copy of folder ``source`` this process holds, if any."""
        with self._lock:
            found = [copy.path for (path, _), copy in self._copies.items() if path == source]
        return found[0] if found else None

    def release(self, copies: Iterable[_Copy]) -> None:
        with self._lock:
            for copy in copies:
                copy.users -= 1

    def forget(self) -> None:
        """Let go of every copy this process holds (a sweep may then remove them)."""
        with self._lock:
            for copy in [*self._copies.values(), *self._old]:
                _close(copy.lock)
            self._copies.clear()
            self._old.clear()

    def _make(self, source: str, covered: tuple[str, ...]) -> _Copy:
        stamps, name = survey(source, covered)
        lock = hold(self.root, name)
        path = self.root / name
        try:
            if not path.is_dir():
                try:
                    _copy_folder(source, path, covered)
                except OSError as error:
                    if error.errno != errno.ENOSPC or not sweep(self.root):
                        raise
                    _copy_folder(source, path, covered)  # once more, with room made
        except BaseException:
            _close(lock)
            raise
        return _Copy(source, covered, stamps, str(path), lock)

    def _let_go(self, now: float) -> None:
        for key, copy in list(self._copies.items()):
            if copy.users == 0 and now - copy.used > IDLE_SECONDS:
                _close(copy.lock)
                del self._copies[key]
        for copy in [copy for copy in self._old if copy.users == 0]:
            _close(copy.lock)
            self._old.remove(copy)


@dataclass
class LaunchFolders:
    """The copies one bot's launch binds, held until its process has ended (``release``)."""

    folders: MemoryFolders
    used: dict[str, _Copy] = field(default_factory=dict)

    def folder(self, source: str, covered: Sequence[str] = ()) -> str:
        """The copy of folder ``source`` to bind in its place (``launcher._bwrap_options``)."""
        copy = self.folders.use(source, covered)
        previous = self.used.get(source)
        if previous is not None:
            self.folders.release([previous])
        self.used[source] = copy
        return copy.path

    def readable(self, readables: Iterable[Readable]) -> tuple[Readable, ...]:
        """``readables`` with every source bound from a copy replaced by the copy (whose
        covered folders are empty already)."""
        return tuple(
            Readable(self.used[readable.path].path, fixed=True)
            if readable.path in self.used
            else readable
            for readable in readables
        )

    def release(self) -> None:
        self.folders.release(self.used.values())
        self.used.clear()


def survey(source: str, covered: Sequence[str] = ()) -> tuple[tuple[Stamp, ...], str]:
    """The stamps of ``source`` and of every folder under it (not those ``covered``), and
    the name of its copy: a digest of what it holds (each entry's name, type, mode, inode,
    size and time) and of ``covered``."""
    identity = hashlib.sha256(f"{_FORMAT}\0{source}\0{sorted(covered)}\0".encode())
    top = os.stat(source)
    stamps = [(source, top.st_ino, top.st_mtime_ns, top.st_size)]
    folders = [("", source)]
    while folders:
        relative, folder = folders.pop()
        for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
            info = entry.stat(follow_symlinks=False)
            name = os.path.join(relative, entry.name)
            identity.update(
                f"{name}\0{info.st_mode}\0{info.st_dev}\0{info.st_ino}\0{info.st_size}\0"
                f"{info.st_mtime_ns}\0".encode()
            )
            if stat.S_ISDIR(info.st_mode) and name not in covered:
                stamps.append((entry.path, info.st_ino, info.st_mtime_ns, info.st_size))
                folders.append((name, entry.path))
    return tuple(stamps), identity.hexdigest()[:32]


def hold(root: Path, name: str) -> int:
    """A descriptor holding a shared lock on copy ``name``: no sweep removes it meanwhile."""
    path = root / f"{name}.lock"
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            # A sweep may have removed the lock file between the open and the lock.
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def sweep(root: Path) -> int:
    """Remove the copies (and half-made ones) no process holds; how many."""
    removed = 0
    try:
        entries = list(os.scandir(root))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.endswith(".lock"):
            continue
        name = entry.name.removesuffix(".lock")
        try:
            fd = os.open(entry.path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            shutil.rmtree(root / name, ignore_errors=True)
            for partial in root.glob(f".{name}.*.partial"):
                shutil.rmtree(partial, ignore_errors=True)
            os.unlink(entry.path)
            removed += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def _copy_folder(source: str, target: Path, covered: Sequence[str]) -> None:
    """Copy folder ``source`` to ``target`` (made aside, then renamed into place)."""
    partial = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    try:
        _copy_tree(source, str(partial), set(covered))
        partial.rename(target)
    except OSError as error:
        shutil.rmtree(partial, ignore_errors=True)
        # Another process made the same copy first: the same files, so either will do.
        if error.errno not in (errno.EEXIST, errno.ENOTEMPTY) or not target.is_dir():
            raise


def _copy_tree(source: str, target: str, covered: set[str]) -> None:
    #: The first copy of each source file, by (device, inode).
    copied: dict[tuple[int, int], str] = {}
    #: Each folder made and its source's stat: its mode and times are set once everything
    #: in it is made (a folder's time moves with each entry made in it), deepest first.
    made: list[tuple[str, os.stat_result]] = []
    #: (source folder, its copy, its path relative to ``source``) still to copy.
    folders = [(source, target, "")]
    while folders:
        folder, copy, relative = folders.pop()
        os.mkdir(copy, 0o700)
        made.append((copy, os.stat(folder)))
        for entry in os.scandir(folder):
            info = entry.stat(follow_symlinks=False)
            name = os.path.join(relative, entry.name)
            path = os.path.join(copy, entry.name)
            if stat.S_ISDIR(info.st_mode):
                if name in covered:  # another bind covers it: its mount point, empty
                    os.mkdir(path, 0o700)
                    made.append((path, info))
                else:
                    folders.append((entry.path, path, name))
            elif stat.S_ISREG(info.st_mode):
                same = copied.get((info.st_dev, info.st_ino))
                if same is not None:
                    os.link(same, path)  # a hard link in the source stays one
                    continue
                shutil.copyfile(entry.path, path, follow_symlinks=False)
                _keep_mode_and_times(path, info)
                copied[(info.st_dev, info.st_ino)] = path
            elif stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(entry.path), path)
                os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=False)
    for path, info in reversed(made):
        _keep_mode_and_times(path, info)


def _keep_mode_and_times(path: str, info: os.stat_result) -> None:
    os.chmod(path, stat.S_IMODE(info.st_mode) & ~_SETID)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


@functools.cache
def _default_root() -> Path:
    return memory_root()  # an error is not cached: the next launch looks again


_FOLDERS: dict[Path, MemoryFolders] = {}
_FOLDERS_LOCK = threading.Lock()
_PID = os.getpid()


def memory_folders(root: Path | None = None) -> MemoryFolders:
    """This process's copies in ``root`` (``memory_root()`` when not given)."""
    global _PID
    root = root or _default_root()
    with _FOLDERS_LOCK:
        if os.getpid() != _PID:
            # A forked child inherits the parent's descriptors, and with them its locks:
            # it lets go of them (the parent keeps its own) and holds what it uses itself.
            for folders in _FOLDERS.values():
                folders.forget()
            _FOLDERS.clear()
            _PID = os.getpid()
        if root not in _FOLDERS:
            _FOLDERS[root] = MemoryFolders(root)
        return _FOLDERS[root]
