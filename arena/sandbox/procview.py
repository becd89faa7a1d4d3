"""What a sandboxed bot sees of ``/proc``: its own processes, and constants for the host's.

A bot's ``/proc`` is a procfs of its own PID namespace (bubblewrap's ``--proc``), so its
process folders are its own; but many of procfs's other files are the whole host's, and
they move with what other processes do: free memory, locked memory, load, interrupts,
context switches, open files, inodes, file locks. Two bots running at once could signal
through them (one locks memory in a rhythm, the other reads ``Mlocked``), so each is
replaced before the bot starts:

- every top-level file of the host's ``/proc`` that others may read and that is not in
  ``STATIC_FILES`` (figures that do not move while the host runs) is bound over with a
  constant file: ``meminfo`` states the bot's own memory limit, ``stat`` the host's CPUs with
  no time on them, ``cpuinfo`` the host's CPUs without their changing clock, ``loadavg`` and
  ``uptime`` zeros, any other an empty file;
- every such folder not in ``STATIC_FOLDERS`` (``sys``, ``irq``, ``fs``, ``pressure`` and
  whatever a newer kernel adds) is bound over with an empty folder.

``/sys`` is not mounted at all. The choice is made once, from the host's ``/proc``, when the
sandbox is probed (``docs/sandbox.md``, "What the host shows a bot").
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

#: Top-level entries that are the bot's own: its PID namespace's processes and links to them.
OWN_ENTRIES = frozenset({"self", "thread-self", "mounts", "net"})
#: Files that stay as the host has them: they change only when hardware or kernel modules do
#: (``keys`` lists the keys the bot itself holds: none, since it may not make any).
STATIC_FILES = frozenset(
    {
        "cmdline",
        "config.gz",
        "consoles",
        "devices",
        "dma",
        "execdomains",
        "filesystems",
        "iomem",
        "ioports",
        "kallsyms",
        "keys",
        "misc",
        "mtrr",
        "partitions",
        "version",
    }
)
#: Folders that stay: firmware tables, devices on buses, drivers' and ttys' descriptions
#: (static), System V IPC (the bot's own IPC namespace).
STATIC_FOLDERS = frozenset({"acpi", "bus", "driver", "sysvipc", "tty"})

_CPU_MHZ = re.compile(r"^(cpu MHz\s*:).*$", re.MULTILINE)


@dataclass(frozen=True)
class ProcView:
    """The bind mounts that replace the host's moving ``/proc`` entries, and their sources.

    ``folder`` holds the constant files and the empty folder; the slot uids can read it.
    """

    folder: Path
    files: tuple[str, ...]
    folders: tuple[str, ...]

    def binds(self, memory_bytes: int) -> tuple[tuple[str, str], ...]:
        """(source, target) of each read-only bind, made after bubblewrap's ``--proc
        /proc``, for a bot of ``memory_bytes``."""
        binds: list[tuple[str, str]] = []
        for name in self.files:
            source = self._meminfo(memory_bytes) if name == "meminfo" else self.folder / name
            binds.append((str(source), f"/proc/{name}"))
        empty = str(self.folder / "empty")
        binds += [(empty, f"/proc/{name}") for name in self.folders]
        return tuple(binds)

    def _meminfo(self, memory_bytes: int) -> Path:
        path = self.folder / f"meminfo-{memory_bytes}"
        if not path.exists():
            _write_constant(path, meminfo_text(memory_bytes))
        return path


def proc_view_survey(folder: Path, proc: Path = Path("/proc")) -> ProcView:
    """Which of the host's ``/proc`` entries to replace, with their constants written to
    ``folder`` (created, readable by everyone)."""
    folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    (folder / "empty").mkdir(mode=0o755, exist_ok=True)
    files, folders = [], []
    for entry in sorted(os.scandir(proc), key=lambda entry: entry.name):
        name = entry.name
        if name.isdigit() or name in OWN_ENTRIES or entry.is_symlink():
            continue
        mode = entry.stat().st_mode
        if not mode & stat.S_IROTH:
            continue  # only root reads it; the bot's uid gets EACCES as it is
        if stat.S_ISDIR(mode):
            if name not in STATIC_FOLDERS:
                folders.append(name)
        elif name not in STATIC_FILES:
            files.append(name)
            _write_constant(folder / name, _constant_text(name, proc))
    return ProcView(folder, tuple(files), tuple(folders))


def meminfo_text(memory_bytes: int) -> str:
    """``/proc/meminfo`` for a bot that may use ``memory_bytes``: all of it free."""
    kib = memory_bytes // 1024
    figures = {
        "MemTotal": kib,
        "MemFree": kib,
        "MemAvailable": kib,
        "Buffers": 0,
        "Cached": 0,
        "SwapCached": 0,
        "SwapTotal": 0,
        "SwapFree": 0,
        "Mlocked": 0,
        "Shmem": 0,
    }
    return "".join(f"{key}:{value:>16} kB\n" for key, value in figures.items())


def _constant_text(name: str, proc: Path) -> str:
    if name == "stat":
        cpus = re.findall(r"^cpu\d+", (proc / "stat").read_text(), re.MULTILINE)
        zeros = " 0" * 10
        lines = [f"cpu {zeros}", *(f"{cpu}{zeros}" for cpu in cpus)]
        lines += ["intr 0", "ctxt 0", "btime 0", "processes 0", "procs_running 1"]
        return "\n".join([*lines, "procs_blocked 0", "softirq 0"]) + "\n"
    if name == "cpuinfo":
        return _CPU_MHZ.sub(r"\1 0.000", (proc / "cpuinfo").read_text())
    if name == "loadavg":
        return "0.00 0.00 0.00 1/1 1\n"
    if name == "uptime":
        return "0.00 0.00\n"
    if name == "meminfo":
        return meminfo_text(0)
    return ""


def _write_constant(path: Path, text: str) -> None:
    # Written aside and renamed: a bot starting meanwhile binds the old file or the new one.
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(text)
    partial.chmod(0o644)
    os.replace(partial, path)
