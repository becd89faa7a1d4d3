"""The shared libraries a program needs: the closure of its ``DT_NEEDED`` entries.

The sandbox shows a bot its runtime's own files, not whole library folders
(``docs/sandbox.md``, "What a seating can leave behind"): each library a runtime loads is
bound by itself, found here once, when the sandbox is probed, as glibc's loader finds it
inside the sandbox, where there is no ``/etc/ld.so.cache``: the object's ``DT_RPATH`` (and
its loaders', when it has no ``DT_RUNPATH``), its ``DT_RUNPATH``, then the loader's system
folders, each after its ``glibc-hwcaps`` subfolders. ``$ORIGIN`` is the folder of the path
the object was opened by, links not followed, as the loader has it.

The paths returned are those the loader opens (``/usr/lib/x86_64-linux-gnu/libz.so.1``,
a link on the host): bound there, each shows its final target's bytes. Their folders are
real folders: the merged-``/usr`` links at the root (``/lib -> usr/lib``) are followed, since
the sandbox recreates those links itself.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import stat
import struct
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: glibc's system folders on a multiarch (Debian) x86_64 host, searched in this order
#: (``ld.so --list-diagnostics``: ``path.system_dirs``).
SYSTEM_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib")
#: The subfolders the loader tries first in each folder, on CPUs that have them.
HWCAPS_SUBDIRS = ("glibc-hwcaps/x86-64-v4", "glibc-hwcaps/x86-64-v3", "glibc-hwcaps/x86-64-v2")

#: A program every host has, whose program interpreter (the loader) is asked for its
#: search folders.
_SHELL = "/bin/sh"
_ELF_MAGIC = b"\x7fELF"
_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 0, 1, 5, 15, 29


class NotELF(ValueError):
    """The file is no ELF object this module reads (64-bit, little-endian)."""


@dataclass(frozen=True)
class ElfDynamic:
    """What the loader reads of an object to find its libraries."""

    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]
    interpreter: str | None
    #: ``e_machine``: the loader skips a library built for another machine.
    machine: int


@functools.cache
def elf_dynamic(path: str) -> ElfDynamic:
    """``DT_NEEDED``, ``DT_RPATH``, ``DT_RUNPATH`` and ``PT_INTERP`` of the object at
    ``path``; ``NotELF`` for anything else (a script, a 32-bit object, a linker script)."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:4] != _ELF_MAGIC or data[4] != 2 or data[5] != 1:
        raise NotELF(path)
    (machine,) = struct.unpack_from("<H", data, 0x12)
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads: list[tuple[int, int, int]] = []
    dynamic: tuple[int, int] | None = None
    interpreter = None
    for index in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + index * phentsize
        )
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
        elif p_type == _PT_INTERP:
            interpreter = data[p_offset : p_offset + p_filesz].split(b"\0")[0].decode()
    if dynamic is None:
        return ElfDynamic((), (), (), interpreter, machine)  # static
    entries: list[tuple[int, int]] = []
    offset, size = dynamic
    for at in range(offset, offset + size, 16):
        tag, value = struct.unpack_from("<qQ", data, at)
        if tag == _DT_NULL:
            break
        entries.append((tag, value))
    strtab = next((value for tag, value in entries if tag == _DT_STRTAB), None)
    if strtab is None:
        raise NotELF(f"{path}: no string table")
    base = _file_offset(loads, strtab)

    def string(index: int) -> str:
        end = data.index(b"\0", base + index)
        return data[base + index : end].decode()

    def paths(tag: int) -> tuple[str, ...]:
        found = [string(value) for entry, value in entries if entry == tag]
        return tuple(part for text in found for part in text.split(":") if part)

    needed = tuple(string(value) for tag, value in entries if tag == _DT_NEEDED)
    return ElfDynamic(needed, paths(_DT_RPATH), paths(_DT_RUNPATH), interpreter, machine)


def _file_offset(loads: list[tuple[int, int, int]], address: int) -> int:
    for vaddr, offset, size in loads:
        if vaddr <= address < vaddr + size:
            return address - vaddr + offset
    raise NotELF(f"address {address:#x} is in no loaded segment")


def is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(4) == _ELF_MAGIC
    except OSError:
        return False


def needed_closure(objects: Iterable[str], sonames: Iterable[str] = ()) -> tuple[str, ...]:
    """Every library ``objects`` (programs, or libraries loaded with ``dlopen``) need, and
    their program interpreters, as the paths the loader opens them by; sorted. ``sonames``
    are libraries wanted by name (``libstdc++.so.6``), as if a program of the host's
    machine needed them.

    A library no folder holds is left out: the loader would fail on the host as well.
    """
    found: dict[str, None] = {}
    for obj in objects:
        _walk(os.path.abspath(obj), (), found)
    machine = _machine(os.path.realpath(_SHELL))
    for name in sonames:
        library = _resolve(name, (), machine) if machine is not None else None
        if library is not None and canonical_folder(library) not in found:
            found[canonical_folder(library)] = None
            _walk(canonical_folder(library), (), found)
    return tuple(sorted(found))


def _walk(path: str, rpaths: tuple[str, ...], found: dict[str, None]) -> None:
    """Add the libraries ``path`` needs; ``rpaths``: its loaders' ``DT_RPATH`` entries."""
    try:
        dynamic = elf_dynamic(os.path.realpath(path))
    except (OSError, NotELF):
        return
    if dynamic.interpreter and os.path.exists(dynamic.interpreter):
        found.setdefault(canonical_folder(dynamic.interpreter), None)
    origin = os.path.dirname(path)
    own_rpath = tuple(_expand(entry, origin) for entry in dynamic.rpath)
    # DT_RPATH counts (the object's, then its loaders') only where there is no DT_RUNPATH.
    searched_rpath = () if dynamic.runpath else (*own_rpath, *rpaths)
    runpath = tuple(_expand(entry, origin) for entry in dynamic.runpath)
    for name in dynamic.needed:
        library = _resolve(name, (*searched_rpath, *runpath), dynamic.machine)
        if library is None:
            continue
        library = canonical_folder(library)
        if library in found:
            continue
        found[library] = None
        _walk(library, (*own_rpath, *rpaths), found)


def _expand(entry: str, origin: str) -> str:
    return entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)


def _resolve(name: str, folders: tuple[str, ...], machine: int) -> str | None:
    if "/" in name:
        return name if os.path.exists(name) else None
    system_dirs, hwcaps = loader_search()
    for folder in (*folders, *system_dirs):
        for sub in (*hwcaps, ""):
            candidate = os.path.join(folder, sub, name)
            if os.path.isfile(candidate) and _machine(candidate) == machine:
                return candidate
    return None


def _machine(path: str) -> int | None:
    """The ELF machine of ``path``; the loader passes over a file of another class or
    machine (a 32-bit library in a folder it searches) and goes on looking."""
    try:
        with open(path, "rb") as file:
            head = file.read(20)
    except OSError:
        return None
    if head[:4] != _ELF_MAGIC or head[4:6] != b"\x02\x01":
        return None
    return struct.unpack_from("<H", head, 0x12)[0]


@functools.cache
def loader_search() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The loader's system folders and its ``glibc-hwcaps`` subfolders, as it reports them
    (``ld.so --list-diagnostics``, glibc 2.33 and later); Debian x86_64's otherwise."""
    try:
        loader = elf_dynamic(os.path.realpath(_SHELL)).interpreter or ""
    except (OSError, NotELF):
        return SYSTEM_DIRS, HWCAPS_SUBDIRS
    try:
        done = subprocess.run(
            (loader, "--list-diagnostics"), capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return SYSTEM_DIRS, HWCAPS_SUBDIRS
    folders = tuple(
        folder.rstrip("/")
        for folder in re.findall(r'^path\.system_dirs\[\w+\]="(.*)"$', done.stdout, re.MULTILINE)
    )
    subdirs = re.search(r'^dl_hwcaps_subdirs="(.*)"$', done.stdout, re.MULTILINE)
    if not folders:
        return SYSTEM_DIRS, HWCAPS_SUBDIRS
    hwcaps = (
        tuple(f"glibc-hwcaps/{sub}" for sub in subdirs.group(1).split(":") if sub)
        if subdirs
        else ()
    )
    return folders, hwcaps


def canonical_folder(path: str) -> str:
    """``path`` with its folder's links followed and its own name kept (the name may be a
    link, which the sandbox shows as its target's bytes)."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(folder), name)


def shared_objects(root: str) -> tuple[str, ...]:
    """The ELF shared objects and programs under folder ``root`` (links not followed)."""
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            candidate = ".so" in name or os.access(path, os.X_OK)
            if candidate and not os.path.islink(path) and is_elf(path):
                found.append(path)
    return tuple(sorted(found))


def stage_libraries(
    libraries: Iterable[str], shown: Iterable[str], stage_root: Path
) -> tuple[tuple[str, str], ...]:
    """The libraries as a few folders to bind, not one bind each (a bind costs bubblewrap
    about 0.15 ms): ``(source, target)`` pairs, each source a folder under ``stage_root``
    holding a hard link (or, across file systems, a copy) of each library under the name the
    loader opens it by, bound at the library's folder. Libraries inside a folder in
    ``shown`` (bound whole already) are left out.

    The staged folder is named by what it holds (names, devices, inodes, sizes and times),
    so a library upgraded on the host gets a new folder at the next probe.
    """
    shown = tuple(folder.rstrip("/") + "/" for folder in shown)
    wanted = sorted({path for path in libraries if not path.startswith(shown)})
    if not wanted:
        return ()
    identity = hashlib.sha256()
    for path in wanted:
        target = os.stat(path)
        identity.update(
            f"{path}\0{target.st_dev}\0{target.st_ino}\0{target.st_size}\0"
            f"{target.st_mtime_ns}\0".encode()
        )
    stage = stage_root / identity.hexdigest()[:32]
    if not stage.is_dir():
        _build_stage(stage, wanted)
    tops: list[str] = []
    for folder in sorted({os.path.dirname(path) for path in wanted}):
        if not any(folder.startswith(top + "/") for top in tops):
            tops.append(folder)
    return tuple((str(stage) + top, top) for top in tops)


def _build_stage(stage: Path, libraries: list[str]) -> None:
    partial = stage.with_name(f".{stage.name}.{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    for path in libraries:
        target = Path(str(partial) + path)
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        real = os.path.realpath(path)
        try:
            os.link(real, target)
        except OSError:
            shutil.copy2(real, target)
            target.chmod(0o755 if os.stat(real).st_mode & stat.S_IXUSR else 0o644)
    for folder, _, _ in os.walk(partial):
        os.chmod(folder, 0o755)
    stage.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    try:
        partial.rename(stage)
    except OSError:
        # Another process staged the same libraries first: the same files, so either does.
        shutil.rmtree(partial, ignore_errors=True)
