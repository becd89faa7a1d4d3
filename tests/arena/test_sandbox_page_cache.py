"""What a seating can leave behind for its twin: the page cache (``docs/sandbox.md``, "What a
seating can leave behind").

``hostile/page_cache.py`` plays duplicate sets against the random strategy: in seat 0 it
reads, or not, one carrier file per bit of its hand (files of its own upload and rarely read
files of the standard library); in seat 1 of the twin, once the first seating's process has
ended, it times a read of each carrier and decodes. Before each set the test evicts every
carrier from the page cache (``posix_fadvise(DONTNEED)``, as root) after unmapping what the
worker keeps resident, so each set starts cold. With the sandbox making every file a bot can
read resident before it starts, the receiver learns nothing; with that switched off, and
the host's folders bound as they were before their copies in memory (which a tmpfs keeps
resident by itself, ``arena.sandbox.memory_folders``), the same bots read the sender's hand.

How much a receiver learns is measured as information through a binary symmetric channel:
with ``p`` the share of bits decoded right, a set of ``k`` bits carries ``k (1 - H(p))``
bits, where ``H`` is the binary entropy; the bound uses the end of the 95 % Wilson interval
of ``p`` farthest from 1/2 (a receiver that inverts its bits learns as much). Two decoders
are judged: the bot's own (a fixed threshold between a read from memory and one from disk)
and one that knows nothing of the disk (the faster half of each set's reads is 1).

Below them: a bot of each runtime can read exactly the files kept resident, and no whole
library folder; the libraries are those glibc's loader opens; a launch reads in what was
evicted, and keeps it (locked), or reads it in again where the lock is refused.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from arena.builtin.strategies import load as load_strategy
from arena.referee import Limits, StrategyPlayer
from arena.runtimes import runtime_named
from arena.sandbox import libraries, memory_folders, resident
from arena.sandbox.reach import reachable_code_dir, runtime_dir
from arena.series import Series
from games.rules import get_game
from tests.bots.conftest import stray_sandbox_processes

from .launching import run_to_end

COVERT = Path(__file__).parent / "hostile" / "page_cache.py"
SNAG = get_game("snag")
LIMITS = Limits(decision_seconds=5.0)
UPLOAD_CARRIERS = 48
STDLIB_CARRIERS = 16
CARRIER_BYTES = 16 << 10
SETS = 32
#: What a seating may leave its twin with every file warm, in bits per set (95 % bound).
BOUND_BITS_PER_SET = 1.0
#: What the test must see without warming, in bits per set (95 % bound, the better of its two
#: decoders), to be no blind one: eight times the bound. How sharply the channel reads depends
#: on the machine (48 of 48 on a quiet one, 31 while a loaded one ran the suite beside it).
BLIND_BITS_PER_SET = 8.0 * BOUND_BITS_PER_SET


@dataclasses.dataclass(frozen=True)
class Upload:
    folder: Path
    #: Host paths of the carriers, in the bot's order.
    carriers: tuple[str, ...]
    #: Those no other process of the host maps: the upload's own, which eviction must empty.
    own: tuple[str, ...]


@pytest.fixture
def make_upload(sandbox):
    """The covert bot's upload, in a folder the slot uids reach as it is (so it is the very
    folder bound at /bot), with its carriers: its own files, then (``stdlib=True``) files
    of the standard library, which another process of this host running bots may hold
    resident whatever the test evicts."""
    folders = []

    def make(*, stdlib: bool) -> Upload:
        folder = runtime_dir(sandbox.config.uid_base) / f"page-cache-{uuid.uuid4().hex}"
        folder.mkdir(mode=0o755)
        folders.append(folder)
        shutil.copyfile(COVERT, folder / "bot.py")
        own = []
        for index in range(UPLOAD_CARRIERS):
            path = folder / f"carrier-{index:02d}.bin"
            path.write_bytes(os.urandom(CARRIER_BYTES))
            own.append(path)
        shared = _rarely_read_stdlib_files(sandbox) if stdlib else []
        inside = [f"/bot/{path.name}" for path in own] + [str(path) for path in shared]
        (folder / "carriers.json").write_text(json.dumps({"carriers": inside}))
        for path in folder.iterdir():
            path.chmod(0o644)
        os.sync()  # clean pages only: DONTNEED drops no dirty page
        carriers = tuple(str(path) for path in (*own, *shared))
        return Upload(folder, carriers, tuple(map(str, own)))

    yield make
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def _rarely_read_stdlib_files(sandbox) -> list[Path]:
    stdlib = Path(sandbox.mounts[1])
    found = [
        path
        for pattern in ("lib2to3/fixes/fix_*.py", "lib2to3/*.py", "pydoc_data/*.py")
        for path in sorted(stdlib.glob(pattern))
        if path.stat().st_size > 0
    ]
    assert len(found) >= STDLIB_CARRIERS, found
    return found[:STDLIB_CARRIERS]


@dataclasses.dataclass(frozen=True)
class PlayedSet:
    #: The sender's hand bits, what the receiver decoded, and its reads in ns.
    sent: str
    decoded: str
    timings: list[int]
    #: Which carriers the host found in the page cache between the two seatings.
    resident_between: str


def play_sets(sandbox, upload: Upload, sets: int) -> list[PlayedSet]:
    """``sets`` duplicate sets, each started with its carriers evicted."""
    random = load_strategy("random")
    covert = sandbox.launcher(upload.folder)
    played = []
    for seed in range(sets):
        resident.RESIDENT.forget()
        evict(upload.carriers)
        assert max(cached_pages(path) for path in upload.own) == 0
        lines = []
        between = ""
        # The first seating, then its twin: each a series of its own, its process ended
        # (the series closed) before the twin starts.
        seatings = ((covert, StrategyPlayer(random, seed)), (StrategyPlayer(random, seed), covert))
        for seat, players in enumerate(seatings):
            with Series(players, matches=1) as series:
                result = series.play(
                    SNAG, SNAG.new_match(seed, {"target": 1}), limits=LIMITS, emit=_ignore
                )
            assert result.forfeit is None, result.forfeit
            lines += [json.loads(line) for line in result.stderr[seat].splitlines() if line]
            if seat == 0:
                read = carriers_read(sandbox, upload)
                between = "".join(str(int(cached_pages(p) > 0)) for p in read)
        sender = next(line for line in lines if line["role"] == "sender")
        receiver = next(line for line in lines if line["role"] == "receiver")
        played.append(
            PlayedSet(sender["hand_bits"], receiver["decoded"], receiver["timings_ns"], between)
        )
    resident.RESIDENT.forget()
    assert stray_sandbox_processes() == []
    return played


def carriers_read(sandbox, upload: Upload) -> list[str]:
    """The files the bot reads for the carriers: their copies in memory, or themselves."""
    if not sandbox.config.folders_in_memory:
        return list(upload.carriers)
    copies = memory_folders.memory_folders()
    read = []
    for path in upload.carriers:
        own = path.startswith(f"{upload.folder}/")
        source = str(upload.folder) if own else sandbox.mounts[1]
        read.append(os.path.join(copies.copy_of(source), os.path.relpath(path, source)))
    return read


def evict(paths) -> None:
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


class _CachestatRange(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _Cachestat(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in ("cache", "dirty", "writeback", "evicted", "recently_evicted")
    ]


_libc = ctypes.CDLL(None, use_errno=True)
_CACHESTAT = 451  # x86_64 and the generic table alike


def cached_pages(path: str) -> int:
    """Pages of ``path`` in the page cache (``cachestat``, Linux 6.5), from the host."""
    fd = os.open(path, os.O_RDONLY)
    try:
        stat = _Cachestat()
        if _libc.syscall(
            _CACHESTAT, fd, ctypes.byref(_CachestatRange(0, 0)), ctypes.byref(stat), 0
        ):
            pytest.skip(f"no cachestat here: errno {ctypes.get_errno()}")
        return stat.cache
    finally:
        os.close(fd)


def rank_decoded(timings: list[int]) -> str:
    """The faster half of one set's reads is 1: a decoder with no idea of the disk."""
    order = sorted(range(len(timings)), key=lambda index: timings[index])
    fast = set(order[: len(timings) // 2])
    return "".join("1" if index in fast else "0" for index in range(len(timings)))


@dataclasses.dataclass(frozen=True)
class Leak:
    """Information through the twins, in bits per set: the estimate and its 95 % bounds."""

    bits: int
    correct: int
    estimate: float
    low: float
    high: float

    def __str__(self) -> str:
        return (
            f"{self.correct}/{self.bits} bits right: {self.estimate:.2f} bits per set"
            f" (95 %: {self.low:.2f} to {self.high:.2f})"
        )


def leak(sent: list[str], decoded: list[str]) -> Leak:
    per_set = len(sent[0])
    bits = sum(len(bits) for bits in sent)
    correct = sum(
        a == b for s, d in zip(sent, decoded, strict=True) for a, b in zip(s, d, strict=True)
    )
    low, high = wilson(correct, bits)

    def information(p: float) -> float:
        return per_set * (1 - entropy(p))

    nearest = 0.5 if low <= 0.5 <= high else min(low, high, key=lambda p: abs(p - 0.5))
    farthest = max(low, high, key=lambda p: abs(p - 0.5))
    return Leak(
        bits, correct, information(correct / bits), information(nearest), information(farthest)
    )


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return centre - half / (1 + z * z / trials), centre + half / (1 + z * z / trials)


def entropy(p: float) -> float:
    if p <= 0 or p >= 1:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def timings(played: list[PlayedSet]) -> str:
    """The receiver's reads in µs (median, 95th percentile, slowest), by the bit sent."""
    parts = []
    for bit in "10":
        reads = sorted(
            ns / 1000
            for one in played
            for b, ns in zip(one.sent, one.timings, strict=True)
            if b == bit
        )
        if reads:
            middle, high = reads[len(reads) // 2], reads[int(len(reads) * 0.95)]
            parts.append(f"sent {bit}: {middle:.1f}/{high:.1f}/{reads[-1]:.1f} µs")
    return "; ".join(parts)


def _ignore(kind: str, payload: dict) -> None:
    pass


@pytest.mark.sandbox
@pytest.mark.slow(seconds=10)
def test_with_every_readable_file_warm_a_seating_leaves_its_twin_nothing_to_decode(
    sandbox, make_upload
):
    assert sandbox.config.warm_files
    upload = make_upload(stdlib=True)
    played = play_sets(sandbox, upload, SETS)

    # Every carrier was resident when the sender started: those it read and those it did not.
    assert {one.resident_between for one in played} == {"1" * len(upload.carriers)}
    sent = [one.sent for one in played]
    by_threshold = leak(sent, [one.decoded for one in played])
    by_rank = leak(sent, [rank_decoded(one.timings) for one in played])
    print(f"warm: threshold decoder {by_threshold}; rank decoder {by_rank}; {timings(played)}")
    assert by_threshold.high <= BOUND_BITS_PER_SET, by_threshold
    assert by_rank.high <= BOUND_BITS_PER_SET, by_rank


@pytest.mark.sandbox
@pytest.mark.slow(seconds=6)
def test_without_warming_the_receiver_reads_the_senders_hand(sandbox, make_upload):
    # The files on disk, as they were bound before their copies in memory.
    config = dataclasses.replace(sandbox.config, warm_files=False, folders_in_memory=False)
    cold = dataclasses.replace(sandbox, config=config)
    played = play_sets(cold, make_upload(stdlib=False), SETS)

    # What the sender read, and that alone, was resident when its twin started.
    assert [one.resident_between for one in played] == [one.sent for one in played]
    sent = [one.sent for one in played]
    by_threshold = leak(sent, [one.decoded for one in played])
    by_rank = leak(sent, [rank_decoded(one.timings) for one in played])
    print(f"cold: threshold decoder {by_threshold}; rank decoder {by_rank}; {timings(played)}")
    assert max(by_threshold.low, by_rank.low) >= BLIND_BITS_PER_SET, (by_threshold, by_rank)


# What a bot can read, and what is kept resident: the same files.

SURVEY = """\
import json, os
found = []
for top in sorted(os.listdir("/")):
    if top in ("proc", "dev", "tmp") or os.path.islink("/" + top):
        continue
    for folder, _, names in os.walk("/" + top):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path) and os.access(path, os.R_OK):
                size = os.stat(path).st_size
                if size:
                    found.append([path, size])
print(json.dumps(found))
"""


def run_survey(sandbox, launcher) -> list[tuple[str, int]]:
    spec = launcher.launch_spec()
    done = run_to_end(spec, 120)
    assert done.returncode == 0, done.stderr[-2000:]
    return [tuple(entry) for entry in json.loads(done.stdout)]


@pytest.mark.sandbox
@pytest.mark.parametrize("name", ["python", "python-scientific", "pypy", "java", "javascript"])
def test_a_bot_can_read_exactly_the_files_kept_resident_its_runtimes_own(sandbox, tmp_path, name):
    status = sandbox.runtimes()[name]
    if not status.available:
        pytest.fail(f"the {name} runtime is missing here: {status.missing}")
    folder = reachable_code_dir(_survey_folder(tmp_path), sandbox.config.uid_base)
    program = sandbox.runtime_program(runtime_named(name))
    # The runtime's filesystem, surveyed by the sandbox's Python (bound in every sandbox).
    survey = dataclasses.replace(program, argv=(sandbox.interpreter, "-I", "-S", "-B", "bot.py"))
    inside = run_survey(sandbox, sandbox.launcher(folder, program=survey))

    readable = [
        path
        for path in sandbox.readable(folder, program)
        if sandbox.proc_view is None or path.path != str(sandbox.proc_view.folder)
    ]
    outside = [os.stat(path).st_size for path in readable for path, _ in resident._survey(path)[1]]
    print(f"{name}: {len(inside)} files, {sum(size for _, size in inside) / 2**20:.1f} MiB")
    assert sorted(size for _, size in inside) == sorted(outside)
    # Its runtime's own files: no whole library folder (Chromium's, LLVM's, ...).
    names = {os.path.basename(path) for path, _ in inside}
    assert not any(name.startswith(("libLLVM", "libgtk", "libavcodec")) for name in names)
    assert sum(size for _, size in inside) < LARGEST_READABLE[name]


#: Ceilings on what a bot of each runtime can read (here, Debian 12: 50, 230, 134, 242 and
#: 145 MiB; before the libraries were staged, from 1.27 to 1.83 GiB).
LARGEST_READABLE = {
    "python": 80 << 20,
    "python-scientific": 300 << 20,
    "pypy": 200 << 20,
    "java": 300 << 20,
    "javascript": 200 << 20,
}


def _survey_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "survey"
    folder.mkdir()
    (folder / "bot.py").write_text(SURVEY)
    return folder


# The resident files, on their own.


def _tree(tmp_path: Path) -> tuple[Path, list[Path], Path]:
    root = tmp_path / "tree"
    (root / "deeper").mkdir(parents=True)
    (root / "hidden").mkdir()
    files = [root / "a.bin", root / "deeper" / "b.bin", root / "deeper" / "c.bin"]
    for path in [*files, root / "hidden" / "d.bin"]:
        path.write_bytes(os.urandom(64 << 10))
    os.sync()
    return root, files, root / "hidden"


def test_a_launch_reads_in_what_was_evicted_and_locks_it(tmp_path):
    root, files, hidden = _tree(tmp_path)
    evict([*map(str, files), str(hidden / "d.bin")])
    kept = resident.ResidentFiles()
    readable = resident.Readable(str(root), (str(hidden),))
    try:
        first = kept.make_resident([readable])
        assert (first.files, first.pages_read, first.trees_mapped) == (3, 48, 1)
        assert [cached_pages(str(path)) for path in files] == [16, 16, 16]
        assert cached_pages(str(hidden / "d.bin")) == 0
        # Locked: what another process evicts stays, and the next launch reads nothing.
        evict(map(str, files))
        assert [cached_pages(str(path)) for path in files] == [16, 16, 16]
        again = kept.make_resident([readable])
        assert (again.pages_read, again.trees_mapped) == (0, 0)
        # A file replaced (a new inode in its folder) is mapped afresh.
        replaced = files[1].with_suffix(".new")
        replaced.write_bytes(os.urandom(8 << 10))
        replaced.replace(files[1])
        after = kept.make_resident([readable])
        assert (after.files, after.trees_mapped) == (3, 1)
    finally:
        kept.forget()


def test_where_the_lock_is_refused_each_launch_reads_in_what_left_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(resident._libc, "mlock", lambda address, length: -1)
    root, files, _ = _tree(tmp_path)
    kept = resident.ResidentFiles()
    readable = resident.Readable(str(root))
    try:
        kept.make_resident([readable])
        (tree,) = kept._trees.values()
        assert not tree.locked
        # The kernel drops the pages (as memory pressure would).
        assert resident._libc.madvise(tree.address, tree.size, MADV_PAGEOUT) == 0
        assert tree.missing_pages().count(0) > 0
        warmth = kept.make_resident([readable])
        assert warmth.pages_read > 0 and warmth.trees_mapped == 0
        assert tree.missing_pages().count(0) == 0
        assert [cached_pages(str(path)) for path in files] == [16, 16, 16]
    finally:
        kept.forget()


MADV_PAGEOUT = 21  # Linux 5.4


def test_the_libraries_are_those_the_loader_opens_without_its_cache(sandbox):
    """The closure of the interpreter's and its extension modules' ``DT_NEEDED`` is what
    glibc's loader itself lists with ``--inhibit-cache`` (the sandbox has no cache)."""
    lib_dynload = Path(sandbox.mounts[1]) / "lib-dynload"
    loader = libraries.elf_dynamic(sandbox.interpreter).interpreter

    def listed(obj: str) -> set[str]:
        done = subprocess.run(
            (loader, "--inhibit-cache", "--list", obj), capture_output=True, text=True
        )
        return {libraries.canonical_folder(path) for path in re.findall(r"=> (/\S+)", done.stdout)}

    for obj in [sandbox.interpreter, *sorted(map(str, lib_dynload.glob("*.so")))]:
        theirs, ours = listed(obj), set(libraries.needed_closure([obj]))
        assert theirs <= ours, (obj, theirs - ours)
        # The loader names itself by its own path; the closure finds it under both.
        assert {path for path in ours - theirs if "ld-linux" not in path} == set(), obj
    # Staged under the names the loader opens, as links to (or copies of) the very files.
    staged = {target: source for source, target in sandbox.libraries}
    for library in listed(sandbox.interpreter):
        folder, name = os.path.split(library)
        copy = Path(staged[folder], name)
        assert copy.read_bytes() == Path(library).read_bytes()
