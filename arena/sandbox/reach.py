"""Code the slot uids can reach, wherever the checkout or the code store lives.

A sandboxed bot's folder is bound into the sandbox by bubblewrap, which runs as the slot's
unprivileged uid: every folder above it must let others through. A checkout in a folder
others cannot enter (root's home, mode 0700) would lock the bots out of their own code. Such
a folder is copied, once, into this instance's runtime folder under the system's temporary
folder, with modes the slot uids can read (and run, where its owner could: a compiled bot);
a folder they can already reach is used as it is.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

_CONTENT_HASH_LENGTH = 64


def reachable_code_dir(code_dir: Path, uid_base: int) -> Path:
    """``code_dir`` if the slot uids can reach it, else its copy that they can."""
    code_dir = Path(code_dir).resolve()
    if others_can_reach(code_dir):
        return code_dir
    mirror = runtime_dir(uid_base) / _content_key(code_dir)
    if not mirror.is_dir():
        _copy_for_others(code_dir, mirror)
    return mirror


def runtime_dir(uid_base: int) -> Path:
    """This instance's folder of code copies, open to the slot uids (read and traverse)."""
    folder = Path(tempfile.gettempdir()) / f"baize-sandbox-code-{uid_base}"
    folder.mkdir(mode=0o755, exist_ok=True)
    return folder


def others_can_reach(path: Path) -> bool:
    """Every folder from the root down to ``path`` lets others through (and ``path`` read)."""
    for folder in (*reversed(path.parents), path):
        mode = folder.stat().st_mode
        if not mode & stat.S_IXOTH:
            return False
    return bool(path.stat().st_mode & stat.S_IROTH)


def _content_key(code_dir: Path) -> str:
    # The code store names each folder by the hash of its content; anything else (the
    # built-in bots, a test's folder) is hashed here, so an edited file gets a fresh copy.
    if len(code_dir.name) == _CONTENT_HASH_LENGTH and code_dir.parent.name != "":
        return f"{code_dir.parent.name}-{code_dir.name}"
    digest = hashlib.sha256(str(code_dir).encode())
    for path in sorted(code_dir.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(code_dir)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _copy_for_others(source: Path, target: Path) -> None:
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial, ignore=shutil.ignore_patterns("__pycache__"))
    for folder, _, files in os.walk(partial):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            # A compiled bot's program stays a program; nothing else becomes one.
            executable = os.stat(path).st_mode & stat.S_IXUSR
            os.chmod(path, 0o755 if executable else 0o644)
    try:
        partial.rename(target)
    except OSError:
        # Another worker made the same copy first: the same bytes, so either will do.
        shutil.rmtree(partial, ignore_errors=True)


def forget_code_copy(code_dir: Path, uid_base: int) -> None:
    """Remove the copy ``reachable_code_dir`` may have made of a stored version's folder."""
    name = Path(code_dir).name
    if len(name) != _CONTENT_HASH_LENGTH:
        return
    copy = runtime_dir(uid_base) / f"{Path(code_dir).parent.resolve().name}-{name}"
    shutil.rmtree(copy, ignore_errors=True)
