"""What a seating can leave behind for its twin: names looked up (``docs/sandbox.md``, "What a
seating can leave behind").

``hostile/dentry_channel.py`` plays duplicate sets against the random strategy through the set
player, under its sealing order: in the first seatings it looks up, or not, one name per bit
of its hand, names that do not exist, in its own ``/bot`` and in the standard library's
folder; in the twins, once every process of the first seatings has ended, it times a lookup of
each name and decodes. On a disk file system a name looked up before is found faster (a
negative dentry stays cached in its folder). With every folder a bot sees bound from its copy
in a memory file system, which keeps no negative dentry, the receiver learns nothing; bound
from the host's folders as before (``folders_in_memory`` off), the same bots read the
sender's hand.

Information is counted as in ``test_sandbox_page_cache.py``: through a binary symmetric
channel, ``k (1 - H(p))`` bits for a set of ``k`` bits decoded right with probability ``p``,
bounded with the end of the 95 % Wilson interval of ``p`` farthest from 1/2. Two decoders are
judged: the bot's own (a threshold from names it looks up twice) and one that knows nothing
of the file system (the faster half of each folder's lookups is 1).

Below them: every folder the bubblewrap command of a bot of each runtime binds is a copy in a
tmpfs, and the copies themselves (modes, times, links, covered folders, changed sources,
sweeps).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import uuid
from pathlib import Path

import pytest

from arena.builtin.strategies import load as load_strategy
from arena.referee import Limits, StrategyPlayer
from arena.runtimes import runtime_named
from arena.sandbox import memory_folders
from arena.sandbox.memory_folders import MemoryFolders, hold, memory_root, sweep
from arena.sandbox.reach import reachable_code_dir, runtime_dir
from arena.set_player import Seating, duplicate_sets, seated, sets_play
from games.rules import get_game
from tests.bots.conftest import stray_sandbox_processes

from .test_sandbox_page_cache import Leak, leak, run_survey

COVERT = Path(__file__).parent / "hostile" / "dentry_channel.py"
SNAG = get_game("snag")
LIMITS = Limits(decision_seconds=5.0)
SETS = 32
#: One run: its first seatings are one series, its second seatings another, and a match's
#: place in its series (which the bot's names carry) names its set.
SERIES_LENGTH = SETS
#: The bot's two folders, by the index of a name (``FOLDERS`` in the bot).
FOLDERS = 2
#: What a seating may leave its twin with the folders in memory, in bits per set (95 % bound).
BOUND_BITS_PER_SET = 1.0
#: What the test must see with the host's folders bound, in bits per set (95 % bound, the
#: better of its two decoders), to be no blind one: eight times the bound. How sharply the
#: channel reads depends on the machine (54 to 62 of 64 on a quiet one, 24 to 36 while a
#: loaded one ran the suite beside it).
BLIND_BITS_PER_SET = 8.0 * BOUND_BITS_PER_SET


@pytest.fixture
def upload(sandbox):
    """The covert bot's upload, with a nonce of its own, in a folder the slot uids reach as
    it is (so it is the very folder bound at /bot, or copied from)."""
    folder = runtime_dir(sandbox.config.uid_base) / f"dentries-{uuid.uuid4().hex}"
    folder.mkdir(mode=0o755)
    shutil.copyfile(COVERT, folder / "bot.py")
    (folder / "nonce.json").write_text(json.dumps({"nonce": uuid.uuid4().hex}))
    for path in folder.iterdir():
        path.chmod(0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@dataclasses.dataclass(frozen=True)
class PlayedSet:
    #: The sender's hand bits, what the receiver decoded, and its lookups in ns.
    sent: str
    decoded: str
    timings: list[int]
    thresholds: list[int]


def play_sets(sandbox, folder: Path, sets: int) -> list[PlayedSet]:
    """``sets`` duplicate sets, the covert bot the pairing's first player (seat 0 of the
    first seatings), as a worker plays a pairing's sets."""
    covert = sandbox.launcher(folder)
    played = sets_play(
        game=SNAG,
        matches=duplicate_sets(range(sets), {"target": 1}),
        players=seated(covert, StrategyPlayer(load_strategy("random"), 1)),
        limits=LIMITS,
        series_length=SERIES_LENGTH,
    )
    lines: dict[tuple[int, Seating], dict] = {}
    for match in played:
        assert match.result.forfeit is None, match.result.forfeit
        seat = 0 if match.match.seating is Seating.FIRST else 1
        (line,) = [json.loads(text) for text in match.result.stderr[seat].splitlines() if text]
        lines[(match.match.number, match.match.seating)] = line
    assert stray_sandbox_processes() == []
    sets_played = []
    for number in sorted({number for number, _ in lines}):
        sender, receiver = lines[(number, Seating.FIRST)], lines[(number, Seating.SWAPPED)]
        assert (sender["role"], receiver["role"]) == ("sender", "receiver")
        assert sender["match"] == receiver["match"]  # the twins' place in their series
        sets_played.append(
            PlayedSet(
                sender["hand_bits"],
                receiver["decoded"],
                receiver["timings_ns"],
                receiver["thresholds_ns"],
            )
        )
    return sets_played


def rank_decoded(timings: list[int]) -> str:
    """In each folder, the faster half of the set's lookups is 1."""
    decoded = ["0"] * len(timings)
    for folder in range(FOLDERS):
        indexes = range(folder, len(timings), FOLDERS)
        order = sorted(indexes, key=lambda index: timings[index])
        for index in order[: len(order) // 2]:
            decoded[index] = "1"
    return "".join(decoded)


def judged(played: list[PlayedSet]) -> tuple[Leak, Leak, str]:
    sent = [one.sent for one in played]
    by_threshold = leak(sent, [one.decoded for one in played])
    by_rank = leak(sent, [rank_decoded(one.timings) for one in played])
    return by_threshold, by_rank, lookups(played)


def lookups(played: list[PlayedSet]) -> str:
    """The receiver's lookups in µs (median, 95th percentile), by the bit sent and folder."""
    parts = []
    for folder, where in enumerate(("/bot", "stdlib")):
        for bit in "10":
            times = sorted(
                one.timings[index] / 1000
                for one in played
                for index in range(folder, len(one.sent), FOLDERS)
                if one.sent[index] == bit
            )
            middle, high = times[len(times) // 2], times[int(len(times) * 0.95)]
            parts.append(f"{where} sent {bit}: {middle:.2f}/{high:.2f} µs")
    return "; ".join(parts)


@pytest.mark.sandbox
@pytest.mark.slow(seconds=10)
def test_with_the_folders_in_memory_a_seating_leaves_its_twin_no_name_to_time(sandbox, upload):
    assert sandbox.config.folders_in_memory
    played = play_sets(sandbox, upload, SETS)

    by_threshold, by_rank, seen = judged(played)
    print(f"in memory: threshold decoder {by_threshold}; rank decoder {by_rank}; {seen}")
    assert by_threshold.high <= BOUND_BITS_PER_SET, by_threshold
    assert by_rank.high <= BOUND_BITS_PER_SET, by_rank


@pytest.mark.sandbox
@pytest.mark.slow(seconds=10)
def test_with_the_hosts_folders_bound_the_receiver_reads_the_senders_hand(sandbox, upload):
    shared = dataclasses.replace(
        sandbox, config=dataclasses.replace(sandbox.config, folders_in_memory=False)
    )
    played = play_sets(shared, upload, SETS)

    by_threshold, by_rank, seen = judged(played)
    print(f"host folders: threshold decoder {by_threshold}; rank decoder {by_rank}; {seen}")
    assert max(by_threshold.low, by_rank.low) >= BLIND_BITS_PER_SET, (by_threshold, by_rank)


# Every folder a bot can look a name up in is a copy in memory.


def bound_folders(argv: tuple[str, ...]) -> list[tuple[str, str]]:
    """(source, target) of every folder bubblewrap binds, from its command line."""
    start = argv.index("--unshare-all")
    options = argv[start : argv.index("--", start)]
    return [
        (options[at + 1], options[at + 2])
        for at, option in enumerate(options)
        if option == "--ro-bind" and os.path.isdir(options[at + 1])
    ]


def mount_type(path: str) -> str:
    return memory_folders._mount_of(path)[0]


@pytest.mark.sandbox
@pytest.mark.parametrize("name", ["python", "python-scientific", "pypy", "java", "javascript"])
def test_every_folder_a_bot_of_each_runtime_sees_is_bound_from_memory(sandbox, upload, name):
    status = sandbox.runtimes()[name]
    if not status.available:
        pytest.fail(f"the {name} runtime is missing here: {status.missing}")
    launcher = sandbox.runtime_launcher(upload, runtime_named(name))
    spec = launcher.launch_spec()
    try:
        folders = bound_folders(spec.argv)
    finally:
        for fd in spec.pass_fds:
            os.close(fd)
        spec.on_close()
    root = str(memory_root())
    targets = {target for _, target in folders}
    assert {"/bot", "/usr/lib/x86_64-linux-gnu", "/proc/sys"} <= targets, targets
    for source, target in folders:
        assert source.startswith(root + "/"), (source, target)
        assert mount_type(source) == "tmpfs", (source, target)
    # A folder another bind covers is its mount point, empty in the copy.
    by_target = dict((target, source) for source, target in folders)
    for target in targets:
        for inner in (t for t in targets if t.startswith(target + "/")):
            assert os.listdir(Path(by_target[target]) / os.path.relpath(inner, target)) == []


#: What a bot finds mounted, from the inside: every mount point and its file system type.
MOUNTS_SURVEY = """\
import json, os
mounts = []
for line in open("/proc/self/mountinfo"):
    left, _, right = line.partition(" - ")
    point = left.split()[4].replace("\\\\040", " ")
    mounts.append([point, right.split()[0], os.path.isdir(point)])
print(json.dumps(mounts))
"""
#: The file systems a bot may look names up in: memory ones, which keep no negative dentry,
#: and those of its own namespaces (its /proc, its /dev/pts).
PRIVATE_OR_IN_MEMORY = {"tmpfs", "proc", "devpts"}


@pytest.mark.sandbox
@pytest.mark.parametrize("name", ["python", "python-scientific", "java"])
def test_from_the_inside_every_folder_mounted_is_in_memory_or_the_sandboxs_own(
    sandbox, tmp_path, name
):
    folder = tmp_path / "survey"
    folder.mkdir()
    (folder / "bot.py").write_text(MOUNTS_SURVEY)
    folder = reachable_code_dir(folder, sandbox.config.uid_base)
    program = sandbox.runtime_program(runtime_named(name))
    survey = dataclasses.replace(program, argv=(sandbox.interpreter, "-I", "-S", "-B", "bot.py"))

    def on_disk(sandbox) -> set[str]:
        mounts = run_survey(sandbox, sandbox.launcher(folder, program=survey))
        folders = {point: kind for point, kind, is_folder in mounts if is_folder}
        assert {"/", "/bot", "/usr/lib/python3.11", "/proc", "/tmp"} <= set(folders)
        return {point for point, kind in folders.items() if kind not in PRIVATE_OR_IN_MEMORY}

    assert on_disk(sandbox) == set()
    # Not blind: the host's folders, bound as before, are found on its disk.
    shared = dataclasses.replace(
        sandbox, config=dataclasses.replace(sandbox.config, folders_in_memory=False)
    )
    assert {"/bot", "/usr/lib/python3.11", "/usr/lib/x86_64-linux-gnu", "/proc/sys"} <= on_disk(
        shared
    )


# The copies themselves.


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    (source / "deep" / "deeper").mkdir(parents=True)
    (source / "covered").mkdir()
    (source / "covered" / "secret.txt").write_text("not copied")
    (source / "a.py").write_text("print('a')\n")
    (source / "deep" / "b.bin").write_bytes(os.urandom(10_000))
    os.link(source / "a.py", source / "deep" / "same.py")
    (source / "deep" / "link").symlink_to("../a.py")
    (source / "setuid").write_text("#!/bin/sh\n")
    os.chmod(source / "setuid", 0o4755)
    os.chmod(source / "deep" / "deeper", 0o700)
    os.utime(source / "a.py", ns=(1_000_000_000, 1_234_567_891_000))
    return source


def test_a_copy_keeps_modes_times_links_and_leaves_covered_folders_empty(tmp_path):
    source = _source(tmp_path)
    root = tmp_path / "memory"
    root.mkdir()
    folders = MemoryFolders(root)
    copy = Path(folders.use(str(source), ["covered"]).path)
    try:
        assert copy.parent == root
        assert (copy / "a.py").read_text() == "print('a')\n"
        assert (copy / "deep" / "b.bin").read_bytes() == (source / "deep" / "b.bin").read_bytes()
        assert os.stat(copy / "a.py").st_mtime_ns == 1_234_567_891_000
        assert os.stat(copy / "a.py").st_ino == os.stat(copy / "deep" / "same.py").st_ino
        assert os.readlink(copy / "deep" / "link") == "../a.py"
        assert stat.S_IMODE(os.stat(copy / "deep" / "deeper").st_mode) == 0o700
        assert stat.S_IMODE(os.stat(copy / "setuid").st_mode) == 0o755
        assert os.listdir(copy / "covered") == []
        # The same source and covered folders: the same copy.
        assert folders.use(str(source), ["covered"]).path == str(copy)
    finally:
        folders.forget()


def test_a_changed_source_gets_a_new_copy_and_a_sweep_removes_what_no_one_holds(tmp_path):
    source = _source(tmp_path)
    root = tmp_path / "memory"
    root.mkdir()
    folders = MemoryFolders(root)
    first = folders.use(str(source))
    (source / "deep" / "new.py").write_text("")  # its folder's stamp moves
    second = folders.use(str(source))
    assert second.path != first.path and (Path(second.path) / "deep" / "new.py").exists()
    # Both are held (the first by a launch still running): a sweep keeps them.
    assert sweep(root) == 0
    folders.release([first, second])
    folders._let_go(float("inf"))  # as if idle for long: this process lets go of both
    assert sweep(root) == 2
    assert os.listdir(root) == []


def test_a_copy_held_by_another_process_is_kept_and_a_dead_ones_is_swept(tmp_path):
    root = tmp_path / "memory"
    (root / "feed").mkdir(parents=True)
    lock = hold(root, "feed")  # as another worker holds it
    assert sweep(root) == 0 and (root / "feed").is_dir()
    # A worker that died: its descriptor, and so its lock, is gone.
    os.close(lock)
    assert sweep(root) == 1 and not (root / "feed").exists()
    # Half-made copies go with their name.
    (root / ".feed.123.abcd.partial").mkdir()
    (root / "feed.lock").touch()
    assert sweep(root) == 1 and os.listdir(root) == []


def test_the_memory_folder_is_a_tmpfs_of_this_user_that_others_cannot_write(tmp_path):
    root = memory_root()
    assert mount_type(str(root)) == "tmpfs"
    info = os.lstat(root)
    assert info.st_uid == os.geteuid() and not info.st_mode & 0o022
    # A disk folder is no candidate.
    with pytest.raises(memory_folders.NoMemoryFolder, match="no tmpfs"):
        memory_root([str(tmp_path)])
