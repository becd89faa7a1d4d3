"""Every file a sandboxed bot can read is in the page cache before the bot starts.

The two seatings of a duplicate set run one after the other and see the same read-only
files: the runtime's (interpreter, standard library, libraries) and the bot's own folder.
A page the first seating reads from disk stays in the page cache, and the second could
tell which by how fast it reads them: a channel of up to a bit per page the first found
cold. So before each bot starts, everything it can read is made resident by the worker:
each file is mapped once per worker process, read in and locked (``mlock``), so that it
stays resident whatever the bots or the host's memory pressure do, and a later launch has
nothing to read, only a ``stat`` of each folder to see that the files are still the ones
mapped. Where the lock is refused (no ``CAP_IPC_LOCK``, a memory lock limit), each launch
asks the kernel which pages are resident (``mincore`` over the mapped files) and reads the
others in.

A set of files not used for ``IDLE_SECONDS`` (a runtime no match plays any more, an old
version's folder) is unmapped, and so unlocked; the next launch that needs it maps it again
and reads in whatever the kernel dropped meanwhile. See ``docs/sandbox.md``, "What a
seating can leave behind".
"""

from __future__ import annotations

import ctypes
import mmap
import os
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

PAGE = mmap.PAGESIZE
#: A tree (a runtime's folder, a version's code) unused this long is unmapped.
IDLE_SECONDS = 600.0
#: At most this many trees stay mapped (each file is a mapping; the kernel allows 65,530).
MAX_TREES = 128

_PROT_NONE, _PROT_READ = 0, mmap.PROT_READ
_MAP_FIXED, _MAP_NORESERVE = 0x10, 0x4000
_MADV_POPULATE_READ = 22  # Linux 5.14
_MAP_FAILED = ctypes.c_void_p(-1).value

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
)
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_libc.mlock.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
_libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


@dataclass(frozen=True)
class Readable:
    """A host path a bot can read (a file or a folder, bound into its sandbox), without the
    folders under it that the sandbox hides."""

    path: str
    hidden: tuple[str, ...] = ()
    #: Its files never change while it exists (a copy named by what it holds,
    #: ``memory_folders``): a launch checks its top folder only, which a new copy replaces.
    fixed: bool = False


@dataclass(frozen=True)
class _File:
    path: str
    first_page: int
    pages: int


@dataclass
class _Tree:
    """One readable path's files, mapped back to back in one reserved range."""

    readable: Readable
    #: (path, inode, mtime in ns, size) of the path itself and of every folder under it: a
    #: file added, removed or replaced changes its folder's.
    stamps: tuple[tuple[str, int, int, int], ...]
    files: tuple[_File, ...]
    address: int
    pages: int
    locked: bool
    used: float = field(default=0.0)

    @property
    def size(self) -> int:
        return self.pages * PAGE

    def stale(self) -> bool:
        return stamps_changed(self.stamps[:1] if self.readable.fixed else self.stamps)

    def missing_pages(self) -> bytearray:
        """One byte a page of the tree: 0 where the page is not in the page cache."""
        vector = bytearray(self.pages)
        if self.pages:
            buffer = (ctypes.c_char * self.pages).from_buffer(vector)
            if _libc.mincore(self.address, self.size, buffer) != 0:
                return bytearray(self.pages)  # unknown: read it all
        return vector

    def read_in(self, vector: bytearray) -> int:
        """Read every file that has a page missing in ``vector``; how many pages were."""
        missing = 0
        for file in self.files:
            pages = vector[file.first_page : file.first_page + file.pages]
            absent = pages.count(0)
            if absent:
                missing += absent
                _populate(self.address + file.first_page * PAGE, file.pages * PAGE, file.path)
        return missing

    def close(self) -> None:
        if self.pages:
            _libc.munmap(self.address, self.size)
        self.pages = 0


@dataclass(frozen=True)
class Warmth:
    """What one ``make_resident`` call did."""

    #: Files and bytes a bot can read (every page of them resident, or read in now).
    files: int
    bytes: int
    #: Pages that were not resident and were read in.
    pages_read: int
    #: Trees mapped for the first time (or again, after a change or an idle spell).
    trees_mapped: int
    seconds: float


class ResidentFiles:
    """The trees this worker process keeps mapped (and locked), by readable path."""

    def __init__(self) -> None:
        self._trees: dict[Readable, _Tree] = {}
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def make_resident(self, readables: Iterable[Readable]) -> Warmth:
        began = time.perf_counter()
        now = time.monotonic()
        files = size = pages_read = mapped = 0
        with self._lock:
            if os.getpid() != self._pid:
                self._forget_inherited()
            wanted = tuple(dict.fromkeys(readables))
            for readable in wanted:
                tree = self._trees.pop(readable, None)
                if tree is not None and tree.stale():
                    tree.close()
                    tree = None
                if tree is None:
                    tree, missing = _map_tree(readable)
                    mapped += 1
                    pages_read += missing
                elif not tree.locked:
                    vector = tree.missing_pages()
                    if vector.find(0) != -1:
                        pages_read += tree.read_in(vector)
                tree.used = now
                self._trees[readable] = tree  # last: the dict is in order of use
                files += len(tree.files)
                size += sum(file.pages for file in tree.files) * PAGE
            self._drop_idle(now, wanted)
        return Warmth(files, size, pages_read, mapped, time.perf_counter() - began)

    def forget(self) -> None:
        """Unmap (and so unlock) every tree; the next launch maps what it needs again."""
        with self._lock:
            for tree in self._trees.values():
                tree.close()
            self._trees.clear()

    def mapped_bytes(self) -> int:
        with self._lock:
            return sum(tree.size for tree in self._trees.values())

    def _drop_idle(self, now: float, keep: Sequence[Readable]) -> None:
        for readable, tree in list(self._trees.items()):
            idle = now - tree.used > IDLE_SECONDS
            if readable not in keep and (idle or len(self._trees) > MAX_TREES):
                tree.close()
                del self._trees[readable]

    def _forget_inherited(self) -> None:
        # A forked child inherits the mappings but not the locks: map again.
        for tree in self._trees.values():
            tree.close()
        self._trees.clear()
        self._pid = os.getpid()


def _map_tree(readable: Readable) -> tuple[_Tree, int]:
    """The tree of ``readable``, mapped, read in and locked where the kernel lets this
    process lock; and how many of its pages were not resident."""
    stamps, found = _survey(readable)
    total = sum(pages for _, pages in found)
    address = 0
    if total:
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE
        address = _libc.mmap(None, total * PAGE, _PROT_NONE, flags, -1, 0)
        if address in (None, _MAP_FAILED):
            raise OSError(ctypes.get_errno(), "cannot reserve address space for files")
    files: list[_File] = []
    first = 0
    for path, pages in found:
        if _map_file(path, address + first * PAGE, pages):
            files.append(_File(path, first, pages))
        first += pages
    tree = _Tree(readable, stamps, tuple(files), address, total, locked=False)
    if not total:
        return tree, 0
    vector = tree.missing_pages()
    missing = len(vector) - sum(vector)
    # Reading every page in and locking it: from now on the files stay resident.
    tree.locked = _libc.mlock(address, total * PAGE) == 0
    if not tree.locked:
        # Read in, and mapped in this process's page tables: the kernel answers ``mincore``
        # from them (it unmaps a page before dropping it), five times as fast as from the
        # page cache itself.
        for file in tree.files:
            _populate(address + file.first_page * PAGE, file.pages * PAGE, file.path)
    return tree, missing


def _survey(readable: Readable) -> tuple[tuple[tuple[str, int, int, int], ...], list]:
    """The stamps of ``readable`` and its folders, and (path, pages) of each file under it
    that a bot's uid can read (others may read it, and enter every folder down to it)."""
    stamps: list[tuple[str, int, int, int]] = []
    found: list[tuple[str, int]] = []
    try:
        top = os.stat(readable.path)  # a bound link shows its target
    except OSError:
        return (), []
    stamps.append((readable.path, top.st_ino, top.st_mtime_ns, top.st_size))
    if stat.S_ISREG(top.st_mode):
        if top.st_size and top.st_mode & stat.S_IROTH:
            found.append((readable.path, -(-top.st_size // PAGE)))
        return tuple(stamps), found
    if not stat.S_ISDIR(top.st_mode):
        return tuple(stamps), found
    hidden = set(readable.hidden)
    folders = [readable.path]
    while folders:
        folder = folders.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if entry.path not in hidden and info.st_mode & stat.S_IXOTH:
                    stamps.append((entry.path, info.st_ino, info.st_mtime_ns, info.st_size))
                    folders.append(entry.path)
            elif stat.S_ISREG(info.st_mode) and info.st_size and info.st_mode & stat.S_IROTH:
                found.append((entry.path, -(-info.st_size // PAGE)))
    return tuple(stamps), found


def _map_file(path: str, address: int, pages: int) -> bool:
    """Map ``pages`` of ``path`` at ``address`` (inside the tree's reserved range)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or -(-info.st_size // PAGE) < pages:
            return False  # changed since the survey; the folder's stamp will say so
        flags = mmap.MAP_SHARED | _MAP_FIXED
        return _libc.mmap(address, pages * PAGE, _PROT_READ, flags, fd, 0) == address
    finally:
        os.close(fd)


def _populate(address: int, length: int, path: str) -> None:
    """Read a mapped file's pages into the page cache."""
    if _libc.madvise(address, length, _MADV_POPULATE_READ) == 0:
        return
    # Before Linux 5.14: read the file itself.
    try:
        with open(path, "rb", buffering=0) as file:
            buffer = bytearray(1 << 20)
            while file.readinto(buffer):
                pass
    except OSError:
        pass


#: This worker process's mapped files.
RESIDENT = ResidentFiles()


def make_resident(readables: Iterable[Readable]) -> Warmth:
    """Make every file under ``readables`` resident (``ResidentFiles.make_resident``)."""
    return RESIDENT.make_resident(readables)


def stamps_changed(stamps: Iterable[tuple[str, int, int, int]]) -> bool:
    """Whether any ``(path, inode, mtime_ns, size)`` no longer describes its path (or it is
    gone): the file or folder was replaced or changed since it was stamped."""
    for path, inode, mtime, size in stamps:
        try:
            now = os.stat(path)
        except OSError:
            return True
        if (now.st_ino, now.st_mtime_ns, now.st_size) != (inode, mtime, size):
            return True
    return False
