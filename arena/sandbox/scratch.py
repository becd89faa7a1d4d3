"""Emptying a sandboxed bot's private folders between two matches of a series.

A bot that plays series keeps its process, and so its memory, from one match to the next
(``docs/bot-protocol.md``, "Series"); its files do not persist. The only folders a
sandboxed bot can write are its own small tmpfs at ``/tmp`` and ``/dev/shm`` (``launcher``),
in its own mount namespace. The runner, root on the host, reaches them through
``/proc/PID/root`` of the sandbox's first process inside that namespace (the bot itself,
bubblewrap running it as pid 1) and removes what they hold while the bot is frozen.

The folders' contents are the bot's: names may be symlinks to host paths, folders may be
nested deep or hold many entries. Every step goes from an open descriptor to a name in it,
never following a symlink (``O_NOFOLLOW``, ``unlink``/``rmdir`` relative to the folder),
so nothing outside the two folders is touched. The work is bounded: a bot that left more
than ``MAX_ENTRIES`` entries, or folders deeper than ``MAX_DEPTH``, is left as it is and the
caller gives its seat a fresh process instead (a fresh sandbox has empty folders).

A file the bot still holds open keeps its content, readable through that descriptor, until
the bot closes it: removing it only removes its name.
"""

from __future__ import annotations

import os

#: The folders a sandboxed bot can write, inside its sandbox (``launcher._bwrap_options``).
PRIVATE_FOLDERS = ("tmp", "dev/shm")
#: The most entries (files, folders, links) removed between two matches; more is a bot
#: filling its folders on purpose, and it gets a fresh process instead.
MAX_ENTRIES = 10_000
MAX_DEPTH = 32

_OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class FilesNotEmptied(OSError):
    """The bot's private folders could not be emptied (too many entries, too deep, or no
    sandbox found): its seat needs a fresh process."""


class PrivateFolders:
    """The private ``/tmp`` and ``/dev/shm`` of one sandboxed bot: found at the first
    ``empty`` and held open until ``close`` (finding them costs ten times emptying them)."""

    def __init__(self) -> None:
        self._folders: list[int] | None = None

    def empty(self, pid: int) -> None:
        """Remove everything in the folders of the sandbox whose outermost process
        (bubblewrap, the one the runner started) is ``pid``.

        Every process of the bot must be frozen. ``OSError`` (``FilesNotEmptied`` among
        them) when the folders cannot be emptied; some entries may be gone by then.
        """
        if self._folders is None:
            self._folders = _open_private_folders(pid)
        budget = MAX_ENTRIES
        for folder in self._folders:
            budget = empty_folder(folder, budget, MAX_DEPTH)

    def close(self) -> None:
        folders, self._folders = self._folders or [], None
        for folder in folders:
            os.close(folder)


def _open_private_folders(pid: int) -> list[int]:
    proc = _inner_process(pid)
    folders: list[int] = []
    try:
        for folder in PRIVATE_FOLDERS:
            folders.append(os.open(f"root/{folder}", _OPEN_FOLDER, dir_fd=proc))
    except OSError:
        for fd in folders:
            os.close(fd)
        raise
    finally:
        os.close(proc)
    return folders


def _inner_process(pid: int) -> int:
    """An open ``/proc/CHILD`` of the child of ``pid`` that lives in another mount
    namespace than this process: the bot, pid 1 of the sandbox. Never the host's own root."""
    ours = os.readlink("/proc/self/ns/mnt")
    for child in _children(pid):
        try:
            proc = os.open(f"/proc/{child}", _OPEN_FOLDER)
        except FileNotFoundError:
            continue
        try:
            # Checked through the open folder: it stays this process's, whatever its pid.
            if _parent(proc) == pid and os.readlink("ns/mnt", dir_fd=proc) != ours:
                return proc
        except OSError:
            pass
        os.close(proc)
    raise FilesNotEmptied(f"no sandbox found under process {pid}")


def _children(pid: int) -> list[int]:
    try:
        fd = os.open(f"/proc/{pid}/task/{pid}/children", os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:  # no CONFIG_PROC_CHILDREN: every process, filtered by parent
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    try:
        return [int(child) for child in os.read(fd, 4096).split()]
    finally:
        os.close(fd)


def _parent(proc: int) -> int:
    fd = os.open("stat", os.O_RDONLY | os.O_CLOEXEC, dir_fd=proc)
    try:
        stat = os.read(fd, 512)
    finally:
        os.close(fd)
    # The command name may hold spaces and parentheses: fields start after the last ")".
    return int(stat[stat.rfind(b")") + 2 :].split(b" ", 2)[1])


def empty_folder(folder: int, budget: int, depth: int) -> int:
    """Remove every entry of the open folder ``folder``, at most ``budget`` of them, in
    folders at most ``depth`` deep, never following a symlink; the budget left.
    ``FilesNotEmptied`` past either bound."""
    listed = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if len(listed) == budget:  # before listing the rest of a huge folder
                raise FilesNotEmptied("more entries to remove than allowed")
            listed.append((entry.name, entry.is_dir(follow_symlinks=False)))
    budget -= len(listed)
    for name, is_folder in listed:
        if not is_folder:
            os.unlink(name, dir_fd=folder)
            continue
        if depth == 0:
            raise FilesNotEmptied("folders nested deeper than allowed")
        inner = os.open(name, _OPEN_FOLDER, dir_fd=folder)
        try:
            budget = empty_folder(inner, budget, depth - 1)
        finally:
            os.close(inner)
        os.rmdir(name, dir_fd=folder)
    return budget
