"""Emptying a bot's private folders between two matches of a series (``arena.sandbox.scratch``).

The walk runs here on folders of the host's, as root would run it on a sandbox's ``/tmp``:
what the bot left there is untrusted. Emptying a real sandbox is in ``test_series``.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.sandbox.scratch import FilesNotEmptied, PrivateFolders, empty_folder


@contextmanager
def opened(folder: Path) -> Iterator[int]:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


def test_a_folder_is_emptied_and_what_its_symlinks_point_at_is_left_alone(tmp_path):
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "folder" / "kept.txt").write_text("kept")
    scratch = tmp_path / "scratch"
    (scratch / "a" / "b").mkdir(parents=True)
    (scratch / "a" / "b" / "deep.txt").write_text("deep")
    (scratch / "note.txt").write_text("note")
    os.mkfifo(scratch / "fifo")
    (scratch / "to-folder").symlink_to(outside / "folder")
    (scratch / "to-file").symlink_to(outside / "folder" / "kept.txt")
    (scratch / "a" / "to-root").symlink_to("/")

    with opened(scratch) as fd:
        left = empty_folder(fd, 100, 4)

    assert list(scratch.iterdir()) == []
    assert left == 100 - 8  # every entry counts: files, folders, links, the fifo
    assert (outside / "folder" / "kept.txt").read_text() == "kept"


def test_a_folder_with_more_entries_than_the_budget_is_refused_before_it_is_listed(tmp_path):
    for n in range(5):
        (tmp_path / f"file-{n}").touch()

    with opened(tmp_path) as fd, pytest.raises(FilesNotEmptied):
        empty_folder(fd, 4, 4)

    assert len(list(tmp_path.iterdir())) == 5, "nothing removed"


def test_folders_nested_deeper_than_allowed_are_refused(tmp_path):
    (tmp_path / "1" / "2" / "3").mkdir(parents=True)

    with opened(tmp_path) as fd, pytest.raises(FilesNotEmptied):
        empty_folder(fd, 100, 2)
    with opened(tmp_path) as fd:
        empty_folder(fd, 100, 3)

    assert list(tmp_path.iterdir()) == []


def test_a_process_outside_any_sandbox_has_no_private_folder_to_empty():
    # Its child shares this process's mount namespace: its /tmp is the host's, never emptied.
    process = subprocess.Popen(["/bin/sh", "-c", "sleep 30 & wait"])
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    try:
        while children.exists() and not children.read_text().split():
            time.sleep(0.01)  # until the shell has started its child
        with pytest.raises(FilesNotEmptied, match="no sandbox"):
            PrivateFolders().empty(process.pid)
    finally:
        process.kill()
        process.wait()
