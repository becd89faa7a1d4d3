"""The runtimes a bot may be written for: one row per language, as games and formats are rows.

A row says what an upload must hold, its optional build (run once, at upload, in the
sandbox: ``arena.builds``), the command that runs the bot from its folder at ``/bot``, what it
binds read-only into the sandbox beside the base system the sandbox always shows, the limits
it needs changed, its upload limits and its starter kit. Every toolchain is a Debian package
(``make runtime-deps``); nothing is downloaded while building or playing. Adding a language is
adding a row here and its kit under ``examples/starters/``. Pure Python, no Django.

Paths in ``run``, ``binds`` and ``build`` are host paths resolved when the sandbox is probed
(``resolve_runtimes``): a row whose programs are missing is unavailable, and why is said.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import shutil
import subprocess
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: The default runtime, and what every version uploaded before runtimes existed is.
DEFAULT_RUNTIME = "python"
#: Where the kits live, one folder per row.
STARTERS_DIR = Path(__file__).resolve().parents[1] / "examples" / "starters"
#: What the build of every compiled row sees: the whole ``/usr`` (compilers, headers,
#: libraries) and the alternatives its commands resolve through, read-only.
BUILD_BINDS = ("/usr", "/etc/alternatives")
#: Placeholder in ``run`` for the sandbox's own Python interpreter (the probed one).
SANDBOX_PYTHON = "{python}"

MIB = 1 << 20


@dataclass(frozen=True)
class UploadLimits:
    """What one upload may weigh: packed, unpacked, and in files."""

    max_bytes: int = 1 * MIB
    max_unpacked_bytes: int = 8 * MIB
    max_files: int = 100


@dataclass(frozen=True)
class Runtime:
    name: str
    title: str
    #: What the upload's root must hold, as shell-style patterns: every pattern must match
    #: at least one file (``bot.py``; ``*.cpp``).
    requires: tuple[str, ...]
    #: What the author is told the upload holds, when it does not.
    expects: str
    #: The command run from ``/bot`` (the built files, or the sources where nothing is built).
    run: tuple[str, ...]
    #: Host paths bound read-only into the sandbox when playing, beyond the base system: the
    #: row's own files only (every file a bot can read is kept resident, see
    #: ``arena.sandbox.resident``). The shared libraries they need are found by the probe.
    binds: tuple[str, ...] = ()
    #: A shell command run in a writable copy of the sources; ``None``: nothing is built.
    build: str | None = None
    #: What the build keeps, relative to the build folder (missing ones are left out).
    outputs: tuple[str, ...] = ()
    #: The commands whose first line names the toolchain's version, for the API and matches.
    version_commands: tuple[tuple[str, ...], ...] = ()
    #: The Debian packages that bring the toolchain.
    packages: tuple[str, ...] = ()
    #: False where an address-space limit breaks the runtime (the JVM, Go and V8 reserve
    #: large ranges they never touch): the slot's memory cgroup bounds it instead, and the row
    #: is unavailable on a host without one.
    address_space_limit: bool = True
    #: Processes (threads count) the bot may run, where the sandbox's default is too few.
    processes: int | None = None
    #: ``None``: the server's default limits (``BAIZE_UPLOAD_*``); executables and jars weigh more.
    upload_limits: UploadLimits | None = None
    #: A single file (not a zip) the row accepts: its suffix, and the name it is stored
    #: under ("" keeps the author's name). The suffix "" accepts any file that is no zip.
    single_files: tuple[tuple[str, str], ...] = ()
    #: Python sources are compiled (never run) at upload, so a syntax error is named there.
    python_sources: bool = False
    #: The upload's ``bot`` must be an x86-64 Linux executable (ELF).
    native_entry: bool = False
    #: What the author's guide says of this row (threads, memory, what is not there).
    notes: str = ""

    @property
    def built(self) -> bool:
        return self.build is not None

    def required_missing(self, root: Collection[str]) -> str | None:
        """The first of ``requires`` that no file name of ``root`` matches, else None."""
        for required in self.requires:
            patterns = required.split("|")
            if not any(fnmatch.fnmatchcase(name, p) for p in patterns for name in root):
                return required
        return None

    def takes_alone(self, filename: str) -> bool:
        """Whether a single file of this name is an upload of this row (by its suffix; a
        row that takes any file says so with the suffix "")."""
        suffix = PurePosixPath(filename.lower()).suffix
        return any(accepted in ("", suffix) for accepted, _ in self.single_files)

    def programs(self) -> tuple[str, ...]:
        """The host programs the row needs: its run command's first word, its build's tools."""
        first = self.run[0]
        return () if first.startswith("./") or first == SANDBOX_PYTHON else (first,)


#: Go's build. Debian ships its standard library compiled with cgo on and no build flags: a
#: build with the same settings links those packages as they are (half a second), where
#: ``CGO_ENABLED=0`` or ``-trimpath`` would compile the ~50 that ``encoding/json`` needs first
#: (8 s of CPU, 25 s on a busy host). The binary is static all the same: the ``netgo`` and
#: ``osusergo`` tags keep ``net`` and ``os/user`` in pure Go, and ``CC=/bin/false`` fails a
#: package that asks for C (``import "C"``). The build's folder is always ``/tmp/build``, so
#: the paths it records are the same for every build of the same sources.
_GO_ENV = (
    "GOCACHE=/tmp/go-cache GOPATH=/tmp/go-path GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local"
    " CGO_ENABLED=1 CC=/bin/false HOME=/tmp"
)
_JVM = (
    "-XX:+UseSerialGC",
    "-Xmx256m",
    "-Xss8m",
    "-XX:MaxMetaspaceSize=64m",
    "-XX:ReservedCodeCacheSize=32m",
    "-XX:-UsePerfData",
)

RUNTIMES: dict[str, Runtime] = {}


def register_runtime(runtime: Runtime) -> Runtime:
    if runtime.name in RUNTIMES:
        raise ValueError(f"runtime {runtime.name!r} is already registered")
    RUNTIMES[runtime.name] = runtime
    return runtime


register_runtime(
    Runtime(
        name="python",
        title="Python 3.11 (standard library)",
        requires=("bot.py",),
        expects="a bot.py, or a .zip with bot.py at its root",
        run=(SANDBOX_PYTHON, "-I", "-S", "-B", "bot.py"),
        version_commands=((SANDBOX_PYTHON, "--version"),),
        packages=("python3",),
        notes="Isolated and without site: the standard library only.",
        single_files=((".py", "bot.py"),),
        python_sources=True,
    )
)
register_runtime(
    Runtime(
        name="python-scientific",
        title="Python 3.11 with numpy and scipy",
        requires=("bot.py",),
        expects="a bot.py, or a .zip with bot.py at its root",
        run=(SANDBOX_PYTHON, "-I", "-B", "bot.py"),
        # numpy and scipy alone of Debian's packages; their shared libraries (BLAS and
        # LAPACK through the alternatives' links among them) are staged by the probe.
        binds=("/usr/lib/python3/dist-packages/numpy", "/usr/lib/python3/dist-packages/scipy"),
        version_commands=(
            (SANDBOX_PYTHON, "--version"),
            (SANDBOX_PYTHON, "-c", "import numpy, scipy; print('numpy', numpy.__version__)"),
            (SANDBOX_PYTHON, "-c", "import scipy; print('scipy', scipy.__version__)"),
        ),
        packages=("python3-numpy", "python3-scipy"),
        notes="Debian's numpy and scipy; OpenBLAS runs one thread (the bot has one CPU).",
        single_files=((".py", "bot.py"),),
        python_sources=True,
    )
)
register_runtime(
    Runtime(
        name="pypy",
        title="PyPy 3 (standard library)",
        requires=("bot.py",),
        expects="a bot.py, or a .zip with bot.py at its root",
        run=("/usr/bin/pypy3", "-I", "-S", "-B", "bot.py"),
        binds=("/usr/lib/pypy3.9",),
        version_commands=(("/usr/bin/pypy3", "--version"),),
        packages=("pypy3",),
        address_space_limit=False,
        notes="Python 3.9's language: no match statements. Its JIT reserves address space, so"
        " the slot's memory cgroup bounds it.",
        single_files=((".py", "bot.py"),),
        python_sources=True,
    )
)
register_runtime(
    Runtime(
        name="cpp",
        title="C++20 (g++ -O2)",
        requires=("*.cpp",),
        expects="one or more .cpp files at the root (headers beside them), in a .zip or alone",
        run=("./bot",),
        build="g++ -std=c++20 -O2 -o bot *.cpp",
        outputs=("bot",),
        version_commands=(("/usr/bin/g++", "--version"),),
        packages=("g++", "nlohmann-json3-dev"),
        notes="nlohmann-json's header is available as <nlohmann/json.hpp>.",
        single_files=((".cpp", ""),),
    )
)
register_runtime(
    Runtime(
        name="rust",
        title="Rust (one crate, rustc -O, no outside crates)",
        requires=("main.rs",),
        expects="a main.rs (other modules beside it), in a .zip or alone",
        run=("./bot",),
        build="/usr/bin/rustc --edition 2021 -C opt-level=2 -o bot main.rs",
        outputs=("bot",),
        version_commands=(("/usr/bin/rustc", "--version"),),
        packages=("rustc",),
        notes="No crates from outside: the build has no network and no registry.",
        single_files=((".rs", "main.rs"),),
    )
)
register_runtime(
    Runtime(
        name="go",
        title="Go (standard library)",
        requires=("*.go",),
        expects="package main in .go files at the root, with or without go.mod",
        run=("./bot",),
        build=f"test -f go.mod || printf 'module bot\\n\\ngo 1.19\\n' >go.mod; {_GO_ENV} go build"
        " -tags netgo,osusergo -o bot .",
        outputs=("bot",),
        version_commands=(("/usr/bin/go", "version"),),
        packages=("golang-go",),
        address_space_limit=False,
        processes=64,
        notes='No cgo (import "C" fails the build), so the binary is static. The runtime starts'
        " a few threads.",
        single_files=((".go", ""),),
    )
)
register_runtime(
    Runtime(
        name="java",
        title="Java 17 (OpenJDK)",
        requires=("*.java|bot.jar",),
        expects="a Bot.java (class Bot with main) and other .java files at the root, or a"
        " bot.jar whose manifest names its main class",
        run=("/usr/bin/java", *_JVM, "-jar", "bot.jar"),
        # The JDK's runtime files, without its jmods, headers and other JDKs of /usr/lib/jvm.
        binds=(
            "/usr/lib/jvm/java-17-openjdk-amd64/lib",
            "/usr/lib/jvm/java-17-openjdk-amd64/conf",
            "/etc/java-17-openjdk",
        ),
        build="test -f bot.jar || { mkdir classes && javac -J-Xmx512m -d classes *.java"
        " && jar --create --file bot.jar --main-class Bot -C classes .; }",
        outputs=("bot.jar",),
        version_commands=(("/usr/bin/java", "-version"),),
        packages=("openjdk-17-jdk-headless",),
        address_space_limit=False,
        processes=96,
        upload_limits=UploadLimits(max_bytes=8 * MIB, max_unpacked_bytes=16 * MIB),
        notes="Run with " + " ".join(_JVM) + ": a 256 MiB heap and one GC thread.",
        single_files=((".java", ""), (".jar", "bot.jar")),
    )
)
register_runtime(
    Runtime(
        name="javascript",
        title="JavaScript (Node.js, no npm packages)",
        requires=("bot.js",),
        expects="a bot.js (other modules beside it), in a .zip or alone",
        run=("/usr/bin/node", "--max-old-space-size=256", "bot.js"),
        version_commands=(("/usr/bin/node", "--version"),),
        packages=("nodejs",),
        address_space_limit=False,
        processes=64,
        notes="V8 reserves address space and starts worker threads; the heap is 256 MiB.",
        single_files=((".js", "bot.js"),),
    )
)
register_runtime(
    Runtime(
        name="executable",
        title="A prebuilt x86-64 Linux executable",
        requires=("bot",),
        expects="an executable named bot at the root of a .zip, static or linked only"
        " against the C and C++ runtime libraries",
        run=("./bot",),
        upload_limits=UploadLimits(max_bytes=16 * MIB, max_unpacked_bytes=32 * MIB),
        notes="Linked statically, or against glibc, libstdc++, libgcc_s and libm only.",
        single_files=(("", "bot"),),
        native_entry=True,
    )
)


def runtime_named(name: str) -> Runtime:
    """The row called ``name``; ``KeyError`` naming the rows there are."""
    try:
        return RUNTIMES[name]
    except KeyError:
        raise KeyError(f"no runtime {name!r}; there are: {', '.join(RUNTIMES)}") from None


def runtime_of_files(names: Collection[str]) -> Runtime:
    """The row a bot's files are most likely written for, read from the table alone: for one
    file, the first row that takes a file of its suffix alone; for a folder (the names at its
    root), the first row whose required files it holds. A row that takes any file (the
    prebuilt executable's) takes what no other row does."""
    rows = list(RUNTIMES.values())
    # Rows that take a file of any suffix come last: they take what the others do not.
    rows.sort(key=lambda row: any(accepted == "" for accepted, _ in row.single_files))
    if len(names) == 1:
        (name,) = names
        found = next((row for row in rows if row.takes_alone(name)), None)
    else:
        found = next((row for row in rows if row.required_missing(names) is None), None)
    return found or rows[-1]


def debian_packages() -> list[str]:
    """Every row's Debian packages, each once, in table order: what ``make runtime-deps``
    and the worker image install, read from here (``python3 -m arena.runtimes`` prints them)."""
    return list(dict.fromkeys(package for row in RUNTIMES.values() for package in row.packages))


@dataclass(frozen=True)
class RuntimeStatus:
    """A row as this host has it: whether it can build and play, and its toolchain."""

    runtime: Runtime
    #: "" when available, else why not.
    missing: str
    #: The toolchain's version lines, the identity a build is keyed by.
    versions: tuple[str, ...]

    @property
    def available(self) -> bool:
        return not self.missing


def runtime_status(runtime: Runtime, python: str, *, memory_cgroup: bool) -> RuntimeStatus:
    """Whether ``runtime`` works on this host, with ``python`` the sandbox's interpreter."""
    for program in (*runtime.programs(), *(c[0] for c in runtime.version_commands)):
        program = python if program == SANDBOX_PYTHON else program
        if not shutil.which(program):
            packages = " ".join(runtime.packages)
            return RuntimeStatus(runtime, f"{program} not found (Debian: {packages})", ())
    for path in runtime.binds:
        if not os.path.exists(path):
            return RuntimeStatus(runtime, f"{path} not found", ())
    if not runtime.address_space_limit and not memory_cgroup:
        why = "no memory cgroup per slot on this host, and the row has no address-space limit"
        return RuntimeStatus(runtime, why, ())
    versions = tuple(_version_line(c, python) for c in runtime.version_commands)
    return RuntimeStatus(runtime, "", versions)


def _version_line(command: tuple[str, ...], python: str) -> str:
    argv = [python if word == SANDBOX_PYTHON else word for word in command]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        return f"{argv[0]}: {error}"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines else f"{argv[0]}: no version printed"


@functools.cache
def runtime_statuses(python: str, *, memory_cgroup: bool) -> Mapping[str, RuntimeStatus]:
    """Every row's status on this host, surveyed once per process (the versions take a
    second or two to ask)."""
    return {
        name: runtime_status(row, python, memory_cgroup=memory_cgroup)
        for name, row in RUNTIMES.items()
    }


if __name__ == "__main__":
    print(" ".join(debian_packages()))
