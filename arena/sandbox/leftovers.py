"""What an instance that died left under its slot uids: found, thawed, ended, removed.

A worker killed mid-match leaves its bots to the parent-death signal, and a bot its slot's
freezer held at that moment cannot act on it: a task a cgroup v1 freezer holds cannot die,
and it waits in state ``D`` for a thaw that its worker will never send (seen: 25 minutes,
until the next worker on the range took the bot for another instance and refused every
sandboxed match). ``leftovers_end`` is what the next holder of the range does first: it
thaws every slot cgroup of the range that a process of its uids is in (wherever the dead
instance made it) and its own ones, sends SIGKILL to every process of the uids, sweeps
them, and removes the slot cgroups left empty. It is only for a range whose holder is known
to be gone (``bots.services.uid_ranges``): a live instance on the same uids would lose its
bots.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from .cgroups import cgroup_remove, cgroup_thaw, own_slot_folders, process_slot_folders
from .slots import sweep_uid

#: How long a thawed process that was sent SIGKILL may take to end.
_END_SECONDS = 2.0


@dataclass(frozen=True)
class Leftovers:
    """What ``leftovers_end`` found under a range's uids, and what became of it."""

    #: The slot cgroups whose freezer held them frozen, thawed.
    thawed: tuple[Path, ...]
    #: The processes of the uids that were alive, sent SIGKILL.
    ended: tuple[int, ...]
    #: Those still alive after the sweep (none but a process the kernel keeps busy).
    remaining: tuple[int, ...]
    #: The slot cgroups removed, left empty.
    removed: tuple[Path, ...]

    def describe(self) -> str:
        if not (self.thawed or self.ended or self.removed):
            return "nothing was left under its uids"
        parts = []
        if self.thawed:
            parts.append(
                f"thawed {len(self.thawed)} frozen slot cgroup(s)"
                f" ({', '.join(map(str, self.thawed))})"
            )
        parts.append(
            f"ended {len(self.ended)} process(es) it left"
            + (f" (pids {' '.join(map(str, self.ended))})" if self.ended else "")
        )
        if self.remaining:
            parts.append(f"{len(self.remaining)} still alive (pids {_pids(self.remaining)})")
        parts.append(f"removed {len(self.removed)} stale slot cgroup(s)")
        return "; ".join(parts)


def leftovers_end(uid_base: int, slots: int) -> Leftovers:
    """Thaw, kill and sweep whatever runs under uids ``uid_base`` to ``uid_base + slots - 1``,
    and remove the range's slot cgroups it leaves empty."""
    found = live_processes(uid_base, slots)
    folders = list(own_slot_folders(uid_base))
    for pid, uid in found.items():
        folders += process_slot_folders(pid, uid_base, uid - uid_base)
    folders = list(dict.fromkeys(folders))
    thawed = tuple(folder for folder in folders if cgroup_thaw(folder))
    for uid in sorted(set(found.values())):
        sweep_uid(uid)
    deadline = time.monotonic() + _END_SECONDS
    remaining = live_processes(uid_base, slots)
    while remaining and time.monotonic() < deadline:
        for uid in set(remaining.values()):
            sweep_uid(uid)
        time.sleep(0.01)
        remaining = live_processes(uid_base, slots)
    # Slots before their folder, deepest first: a cgroup with a child cannot go.
    ordered = sorted(folders, key=lambda folder: len(folder.parts), reverse=True)
    parents = {folder.parent for folder in ordered if folder.name.startswith("slot-")}
    ordered += sorted(parents - set(ordered))
    removed = tuple(folder for folder in ordered if cgroup_remove(folder))
    return Leftovers(thawed, tuple(sorted(found)), tuple(sorted(remaining)), removed)


def live_processes(uid_base: int, slots: int) -> dict[int, int]:
    """Pid -> uid of every process of the uids that is not a zombie, read from ``/proc``."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            uid = entry.stat(follow_symlinks=False).st_uid
            if not uid_base <= uid < uid_base + slots:
                continue
            stat = Path(f"/proc/{entry.name}/stat").read_bytes()
        except OSError:
            continue  # it ended while we looked
        # The command name may hold spaces and parentheses: the state follows the last ")".
        if stat[stat.rfind(b")") + 2 :][:1] != b"Z":
            found[int(entry.name)] = uid
    return found


def _pids(pids: tuple[int, ...]) -> str:
    shown = " ".join(map(str, pids[:10]))
    return shown + (" ..." if len(pids) > 10 else "")
