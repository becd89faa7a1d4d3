"""The host's process table as the tests read it (``/proc``): several tests must tell a
process still running from a zombie, by its uid or its process group."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class ProcessEntry:
    pid: int
    uid: int
    #: The kernel's one-letter state: ``Z`` for a zombie, which runs nothing.
    state: str
    parent: int
    group: int


def process_table() -> Iterator[ProcessEntry]:
    """Every process there is now; one that ends while it is read is left out."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            uid = entry.stat().st_uid
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        yield ProcessEntry(int(entry.name), uid, fields[0].decode(), int(fields[1]), int(fields[2]))
