"""What builds or runs a bot on this worker, as a version, a match and ``GET /api/runtimes/``
record it: a row's toolchain.

A row's own commands name its toolchain (``arena.runtimes``: ``g++ --version``). A prebuilt
native bot (the ``executable`` row) has none on the server: it brings its compiler's output,
and runs against this worker's C library and C++ runtime, which the sandbox shows it. Those
are its toolchain here, so that a match of one records what it ran against.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from arena.runtimes import RuntimeStatus

#: Where the loader finds the C++ runtime on a Debian x86-64 host.
LIBRARY_DIRS = ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")
#: The Debian packages of the C library and the C++ runtime.
NATIVE_PACKAGES = ("libc6", "libstdc++6")


def runtime_toolchain(status: RuntimeStatus) -> tuple[str, ...]:
    """The toolchain of a row as this worker has it, one line per tool: its commands' version
    lines, or, for a native bot's row that has none, the C library and C++ runtime here."""
    if status.versions or not status.runtime.native_entry:
        return status.versions
    return native_libraries()


@functools.cache
def native_libraries() -> tuple[str, str]:
    """This host's C library and C++ runtime, each with its Debian package's version where
    dpkg knows it: ``glibc 2.36 (Debian libc6 2.36-9+deb12u13)``."""
    packages = _debian_versions(NATIVE_PACKAGES)
    glibc = os.confstr("CS_GNU_LIBC_VERSION") if "CS_GNU_LIBC_VERSION" in os.confstr_names else ""
    libstdcxx = _library_file("libstdc++.so.6")
    return (
        _with_package(glibc or "the C library (its version unknown)", "libc6", packages),
        _with_package(libstdcxx or "libstdc++.so.6 (not found)", "libstdc++6", packages),
    )


def _library_file(soname: str) -> str:
    """The file the soname's link leads to (``libstdc++.so.6.0.30``: its exact version)."""
    for folder in LIBRARY_DIRS:
        path = Path(folder) / soname
        if path.exists():
            return path.resolve().name
    return ""


def _debian_versions(packages: tuple[str, ...]) -> dict[str, str]:
    dpkg = shutil.which("dpkg-query")
    if dpkg is None:
        return {}
    try:
        done = subprocess.run(
            [dpkg, "-W", "-f", "${Package} ${Version}\\n", *packages],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    # A multiarch package is listed as ``libc6:amd64``.
    pairs = (line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    return {name.split(":")[0]: version for name, version in pairs}


def _with_package(line: str, package: str, versions: dict[str, str]) -> str:
    version = versions.get(package)
    return line if version is None else f"{line} (Debian {package} {version})"
