"""Uploaded bot code: reading an upload, checking it in memory, and the content-addressed store.

An upload is one file or a ``.zip``, for a runtime (``arena.runtimes``): a row names the single
files it takes (a ``.py`` becomes ``bot.py``) and what the upload's root must hold. Every check
runs on the bytes in memory before anything is written: size, zip structure (no absolute or
``..`` paths, no links or special files, no encryption, no duplicate names, a bounded count
and unpacked size, with the sizes checked while reading, not trusted from the headers), the
row's required files, that every Python file compiles where the row runs Python, and that a
native ``bot`` is an x86-64 executable. Executable bits in a zip are kept. Code is stored once per
content hash, under ``<store>/<sha256>/``, a path the uploader never chooses; stored code is
never changed, so a rejected upload cannot alter anything stored before it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from errors import DomainError

from .runtimes import DEFAULT_RUNTIME, RUNTIMES, Runtime, UploadLimits

_ENCRYPTED_FLAG = 0x1
#: Bounds on a path inside an uploaded zip: any real bot fits well within them, and the
#: store's file system (255 bytes a name, a few thousand a path) always can hold them.
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
MAX_PATH_DEPTH = 32


class UploadRejected(DomainError):
    """An upload Baize refuses: ``code`` names why for programs, the message for people."""

    def __init__(
        self, code: str, message: str, *, status: int = 400, field: str | None = None
    ) -> None:
        super().__init__(message, field=field)
        self.code = code
        self.status = status


@dataclass(frozen=True)
class BotCode:
    """The files of one bot version, by relative POSIX path, and which of them are executable."""

    files: Mapping[str, bytes]
    executables: frozenset[str] = frozenset()

    @property
    def size(self) -> int:
        return sum(len(content) for content in self.files.values())

    @property
    def content_hash(self) -> str:
        """SHA-256 over every path, mode and content in path order: the same files, the same
        hash, whether they came alone or inside a ``.zip``. A file without its executable bit
        hashes as it did before the bit was kept, so older hashes still name their code."""
        digest = hashlib.sha256()
        for path in sorted(self.files):
            content = self.files[path]
            mode = "x\0" if path in self.executables else ""
            digest.update(f"{path}\0{len(content)}\0{mode}".encode())
            digest.update(content)
        return digest.hexdigest()


def read_upload(
    filename: str, data: bytes, limits: UploadLimits, runtime: Runtime | None = None
) -> BotCode:
    """The checked code of an upload for ``runtime`` (the default row if none);
    ``UploadRejected`` with the first problem found."""
    runtime = runtime or RUNTIMES[DEFAULT_RUNTIME]
    if len(data) > limits.max_bytes:
        raise UploadRejected(
            "too_large",
            f"the upload is {len(data)} bytes; at most {limits.max_bytes} are accepted",
            status=413,
        )
    if PurePosixPath(filename.lower()).suffix == ".zip":
        code = read_zip(data, limits)
    else:
        code = _single_file(filename, data, runtime)
    _check_fits(code, runtime)
    return code


def _single_file(filename: str, data: bytes, runtime: Runtime) -> BotCode:
    name = PurePosixPath(filename).name
    suffix = PurePosixPath(name.lower()).suffix
    for accepted, stored_as in runtime.single_files:
        if accepted in ("", suffix):
            path = stored_as or safe_path(name)
            if runtime.python_sources:
                # Stored as bot.py, but a syntax error names the file its author knows.
                _check_compiles(name, data)
            return BotCode({path: data}, frozenset({path}) if runtime.native_entry else frozenset())
    accepted = " or ".join(f"a {suffix} file" for suffix, _ in runtime.single_files)
    raise UploadRejected(
        "unsupported_file",
        f"upload {accepted} or a .zip for the {runtime.name} runtime ({runtime.expects}),"
        f" not {filename!r}",
    )


def _check_fits(code: BotCode, runtime: Runtime) -> None:
    """The files are what ``runtime`` runs or builds: its required files at the root,
    Python that compiles, a native ``bot`` that is an executable of this machine's kind."""
    root = [path for path in code.files if "/" not in path]
    required = runtime.required_missing(root)
    if required is not None:
        nested = sorted(
            p for p in code.files if fnmatch.fnmatchcase(PurePosixPath(p).name, required)
        )
        hint = f" (found {nested[0]}: zip the folder's contents, not the folder)" if nested else ""
        shown = " or ".join(required.split("|"))
        raise UploadRejected(
            "no_entry_point",
            f"no {shown} at the upload's root{hint}; the {runtime.name} runtime expects"
            f" {runtime.expects}",
        )
    if runtime.python_sources:
        for path, content in code.files.items():
            if path.endswith(".py"):
                _check_compiles(path, content)
    if runtime.native_entry:
        _check_native(code, "bot")


#: ELF, 64-bit, little-endian, version 1; ``e_machine`` 62 is x86-64.
_ELF_HEAD = b"\x7fELF\x02\x01\x01"
_X86_64 = 62


def _check_native(code: BotCode, path: str) -> None:
    content = code.files[path]
    machine = int.from_bytes(content[18:20], "little") if len(content) >= 20 else -1
    if not content.startswith(_ELF_HEAD) or machine != _X86_64:
        raise UploadRejected(
            "not_an_executable", f"{path} is not an x86-64 Linux executable (64-bit ELF)"
        )
    if path not in code.executables:
        raise UploadRejected(
            "not_an_executable",
            f"{path} has no executable bit in the zip: zip it with its mode (zip keeps it;"
            " chmod +x first)",
        )


def read_zip(data: bytes, limits: UploadLimits) -> BotCode:
    """The files of a zip, its structure checked (not what a runtime needs of them)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError):
        raise UploadRejected(
            "not_a_zip", "the file is named .zip but is not a zip archive"
        ) from None
    except UnicodeDecodeError:
        raise UploadRejected(
            "not_a_zip", "the zip flags an entry's name as UTF-8, but it is not UTF-8"
        ) from None
    with archive:
        members = _checked_members(archive.infolist(), limits)
        files = _unpack(archive, members, limits)
    executables = frozenset(path for path, info in members if (info.external_attr >> 16) & 0o111)
    return BotCode(files, executables)


def _checked_members(
    infos: list[zipfile.ZipInfo], limits: UploadLimits
) -> list[tuple[str, zipfile.ZipInfo]]:
    """Regular files with safe paths, their declared total within limits; directories dropped."""
    if len(infos) > limits.max_files:
        raise UploadRejected(
            "zip_too_many_files", f"the zip holds {len(infos)} entries; at most {limits.max_files}"
        )
    members, seen, declared = [], set(), 0
    for info in infos:
        path = safe_path(info.filename)
        kind = stat.S_IFMT(info.external_attr >> 16)
        if kind == stat.S_IFLNK:
            raise UploadRejected("zip_link", f"the zip holds a link: {info.filename!r}")
        if info.is_dir() or kind == stat.S_IFDIR:
            continue
        if kind not in (0, stat.S_IFREG):
            raise UploadRejected("zip_special_file", f"not a regular file: {info.filename!r}")
        if info.flag_bits & _ENCRYPTED_FLAG:
            raise UploadRejected("zip_encrypted", f"the zip entry {info.filename!r} is encrypted")
        if path in seen:
            raise UploadRejected("zip_duplicate", f"the zip holds {path!r} twice")
        seen.add(path)
        declared += info.file_size
        members.append((path, info))
    if declared > limits.max_unpacked_bytes:
        raise _too_large_unpacked(limits)
    _refuse_path_conflicts(seen)
    return members


def _refuse_path_conflicts(paths: set[str]) -> None:
    """A file cannot also be a folder of another file (``x`` beside ``x/y.py``)."""
    for path in sorted(paths):
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder in paths:
                raise UploadRejected(
                    "zip_path_conflict", f"the zip holds {folder!r} both as a file and a folder"
                )


def safe_path(name: str) -> str:
    """``name`` as a relative path inside the bot's folder, or ``zip_traversal``."""
    parts = name.split("/")
    unsafe = (
        name.startswith("/")
        or "\\" in name
        or "\0" in name
        or ":" in parts[0]
        or any(part == ".." for part in parts)
    )
    kept = [part for part in parts if part not in ("", ".")]
    if unsafe or not kept:
        raise UploadRejected(
            "zip_traversal", f"the zip entry {name[:200]!r} points outside its folder"
        )
    path = "/".join(kept)
    too_long = (
        len(kept) > MAX_PATH_DEPTH
        or len(path.encode()) > MAX_PATH_BYTES
        or any(len(part.encode()) > MAX_NAME_BYTES for part in kept)
    )
    if too_long:
        raise UploadRejected(
            "zip_path_too_long",
            f"the zip entry {name[:100]!r}... is too long: at most {MAX_PATH_DEPTH} folders"
            f" deep, {MAX_NAME_BYTES} bytes a name and {MAX_PATH_BYTES} bytes a path",
        )
    return path


def _unpack(
    archive: zipfile.ZipFile, members: list[tuple[str, zipfile.ZipInfo]], limits: UploadLimits
) -> dict[str, bytes]:
    """Read each member, counting real bytes: a header may lie about sizes (zip bombs do)."""
    files, budget = {}, limits.max_unpacked_bytes
    for path, info in members:
        try:
            with archive.open(info) as member:
                content = member.read(budget + 1)
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as error:
            raise UploadRejected(
                "not_a_zip", f"the zip entry {path!r} is damaged: {error}"
            ) from None
        budget -= len(content)
        if budget < 0:
            raise _too_large_unpacked(limits)
        files[path] = content
    return files


def _too_large_unpacked(limits: UploadLimits) -> UploadRejected:
    return UploadRejected(
        "zip_too_large",
        f"the zip unpacks to more than {limits.max_unpacked_bytes} bytes",
        status=413,
    )


def _check_compiles(path: str, source: bytes) -> None:
    """Compile (never run) ``source``: a syntax error is reported with ``path`` (the name
    the author gave the file) and its line."""
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise UploadRejected("syntax_error", f"{path} line {error.lineno}: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise UploadRejected("syntax_error", f"{path} does not compile: {error}") from None


def code_dir(store: Path, content_hash: str) -> Path:
    """Where the code with ``content_hash`` lives; the hash is checked to be one."""
    if len(content_hash) != 64 or not all(c in "0123456789abcdef" for c in content_hash):
        raise ValueError(f"not a content hash: {content_hash!r}")
    return store / content_hash


def store_code(code: BotCode, store: Path) -> Path:
    """Write ``code`` under ``store`` once; an existing copy of the same hash is kept as is.

    Files are written into a private staging folder, made world-readable (the sandbox's slot
    uids read them) and renamed into place in one step, so a reader never sees half a bot.
    """
    target = code_dir(store, code.content_hash)
    if target.is_dir():
        return target
    store.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=store))
    try:
        _write_files(staging, code)
        os.rename(staging, target)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not target.is_dir():  # a concurrent upload of the same code may have won the rename
            raise
    return target


def _write_files(folder: Path, code: BotCode) -> None:
    for path, content in code.files.items():
        destination = folder / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(content)
        destination.chmod(0o755 if path in code.executables else 0o644)
    for directory in [folder, *(p for p in folder.rglob("*") if p.is_dir())]:
        directory.chmod(0o755)


def zip_code(code: BotCode) -> bytes:
    """The canonical zip of ``code``: its files in path order with a fixed time, so the same
    code always zips to the same bytes (what the shared code store keeps)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(code.files):
            info = zipfile.ZipInfo(path, (1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if path in code.executables else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            archive.writestr(info, code.files[path])
    return buffer.getvalue()


def read_code_folder(folder: Path) -> BotCode:
    """The files under ``folder`` (a stored version's), by relative POSIX path."""
    paths = [
        path
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    ]
    return BotCode(
        {path.relative_to(folder).as_posix(): path.read_bytes() for path in paths},
        frozenset(
            path.relative_to(folder).as_posix() for path in paths if path.stat().st_mode & 0o111
        ),
    )
