"""No kernel object crosses sandboxes: what one bot leaves on a file, a page or a name that
every sandbox shares, its twin cannot read back.

Every sandbox binds the same files (the interpreter, its standard library, the shared
libraries), so whatever the kernel keeps on their inodes or pages is seen by every other
sandbox on the host. A duplicate set plays one deal twice, seats swapped: the first seating's
process may stay alive (frozen, in a series) while the twin is played. The seccomp filter
refuses the calls that leave such state (``arena.sandbox.seccomp``, ``docs/sandbox.md``):

- each call is refused with its errno, and the calls beside it (other ``fcntl`` commands,
  other ``madvise`` advice, shared ``flock``) still work: ``native/kernel_objects.cpp``
  makes each call directly, run as an uploaded bot is run;
- the hostile bots that tell their twin their hand, through byte-range locks on a standard
  library file or inotify watches on 52 of them (``hostile/lock_channel.py``,
  ``hostile/inotify_channel.py`` and the same two in C++), play twin matches in two live
  sandboxes at once and decode nothing;
- run again with the filter built from the table as it was before these rules (kept here
  only), the same bots decode their opponent's whole hand: the test is not blind.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.referee import Limits, MatchResult
from arena.runner import BUILTIN_DIR
from arena.sandbox import Sandbox
from arena.sandbox.seccomp import (
    DENIED_WHEN,
    EXPORTER,
    RECORD_LOCKS,
    SECCOMP_PYTHON,
    SeccompUnavailable,
    filter_program,
    policy_json,
)
from arena.series import Series
from games.rules import get_game
from tests.bots.conftest import ALLOW_NO_SANDBOX, stray_sandbox_processes

from . import bpf
from .launching import EXEC_BOT, run_to_end

HOSTILE = Path(__file__).parent / "hostile"
SOURCE = Path(__file__).parent / "native" / "kernel_objects.cpp"
#: The bot the launcher starts: it becomes the compiled program.
#: The standard library of the sandbox's Python, which the C++ bots use as their channel.
STDLIB = "/usr/lib/python3.11"
RUN_SECONDS = 20.0
LIMITS = Limits(decision_seconds=0.5, start_seconds=5.0, time_bank_seconds=0.25)
OPTIONS = {"target": 1}  # one deal: the match ends with it
#: The deal the twins play, and the one the inotify receiver plays first to set its watches.
DEAL_SEED, WARM_UP_SEED = 2, 3

#: What the rules of this change refuse, and the errno: each made by ``kernel_objects probe``.
REFUSED = {
    "flock_ex": "EOPNOTSUPP",
    "flock_ex_nb": "EOPNOTSUPP",
    "fcntl_getlk": "ENOLCK",
    "fcntl_setlk": "ENOLCK",
    "fcntl_setlkw": "ENOLCK",
    "fcntl_ofd_getlk": "ENOLCK",
    "fcntl_ofd_setlk": "ENOLCK",
    "fcntl_ofd_setlkw": "ENOLCK",
    "fcntl_setlk_high_bits": "ENOLCK",
    "fcntl_setlease": "EINVAL",
    "fcntl_getlease": "EINVAL",
    "fcntl_notify": "EINVAL",
    "inotify_init": "ENOSYS",
    "inotify_init1": "ENOSYS",
    "inotify_add_watch": "ENOSYS",
    "inotify_rm_watch": "ENOSYS",
    "fanotify_init": "EPERM",
    "fanotify_mark": "EPERM",
    "madvise_cold": "EINVAL",
    "madvise_pageout": "EINVAL",
    "madvise_mergeable": "EINVAL",
    "madvise_hwpoison": "EPERM",
    "madvise_soft_offline": "EPERM",
    "process_madvise_cold": "EINVAL",
    "process_madvise_pageout": "EINVAL",
    "prctl_memory_merge": "EINVAL",
    "cachestat": "EPERM",
    "preadv2_nowait": "EOPNOTSUPP",
    "pwritev2_nowait": "EOPNOTSUPP",
    "io_setup": "ENOSYS",
    "io_submit": "ENOSYS",
}
#: The calls beside them, which runtimes and build tools use: they still work.
ALLOWED = [
    "flock_sh",
    "flock_sh_nb",
    "fcntl_getfl",
    "fcntl_setfd",
    "fcntl_dupfd",
    "madvise_willneed",
    "madvise_dontneed",
    "madvise_free",
    "madvise_hugepage",
    "process_madvise_willneed",
    "prctl_get_dumpable",
    "preadv2",
    "pwritev2",
]
#: Refused by this change and let through by the old table (the kernel alone allows them).
THROUGH_WITH_THE_OLD_RULES = [
    "flock_ex_nb",
    "fcntl_getlk",
    "fcntl_setlk",
    "fcntl_ofd_setlk",
    "fcntl_notify",
    "inotify_init1",
    "madvise_cold",
    "madvise_pageout",
    "process_madvise_pageout",
    "cachestat",
    "preadv2_nowait",
    "io_setup",
]

#: The names and argument rules this change added. The old table, kept in this test only,
#: is the policy without them: the filter the hostile bots below were first run against.
NEW_DENIED = {
    "fanotify_mark",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "inotify_rm_watch",
    "cachestat",
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
}
NEW_DENIED_WHEN = {
    "flock",
    "fcntl",
    "fcntl64",
    "madvise",
    "process_madvise",
    "preadv2",
    "pwritev2",
    "prctl",
}

pytestmark = pytest.mark.sandbox


def old_policy() -> str:
    policy = json.loads(policy_json())
    policy["deny"] = {name: e for name, e in policy["deny"].items() if name not in NEW_DENIED}
    policy["deny_when"] = [
        row for row in policy["deny_when"] if not set(row["calls"]) & NEW_DENIED_WHEN
    ]
    return json.dumps(policy)


@pytest.fixture(scope="module")
def old_rules(sandbox, tmp_path_factory) -> Sandbox:
    """This machine's sandbox with the filter built from the old table, and the host's
    folders bound as they were then (a copy in memory, a tmpfs file, takes no
    ``RWF_NOWAIT`` whatever the filter says)."""
    folder = tmp_path_factory.mktemp("old-rules")
    try:
        (folder / "seccomp.bpf").write_bytes(filter_program(policy=old_policy()))
    except SeccompUnavailable as error:
        pytest.fail(f"libseccomp cannot build the old filter: {error}")
    config = dataclasses.replace(sandbox.config, state_dir=folder, folders_in_memory=False)
    assert config.filter_path == folder / "seccomp.bpf"
    return dataclasses.replace(sandbox, config=config)


@pytest.fixture(scope="module")
def native_bot(tmp_path_factory) -> Path:
    """A bot folder holding ``kernel_objects``, compiled from ``native/kernel_objects.cpp``,
    and the bot that runs it."""
    if shutil.which("g++") is None:
        message = "g++ is needed to compile the native probes (make runtime-deps)"
        if ALLOW_NO_SANDBOX:
            pytest.skip(message)
        pytest.fail(message)
    folder = tmp_path_factory.mktemp("kernel-objects-bot")
    subprocess.run(
        [
            "g++",
            "-std=c++17",
            "-O1",
            "-Wall",
            "-Werror",
            "-o",
            str(folder / "kernel_objects"),
            str(SOURCE),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    (folder / "run.py").write_text(EXEC_BOT)
    return folder


def probe(sandbox: Sandbox, folder: Path, call: str) -> str:
    """What ``kernel_objects probe CALL`` prints, run as an uploaded bot is run."""
    spec = sandbox.launcher(folder, script="run.py", args=("kernel_objects", "probe", call))
    spec = spec.launch_spec()
    run = run_to_end(spec, RUN_SECONDS)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stdout!r} {run.stderr!r}"
    return run.stdout.strip()


# Each call, made directly. ---------------------------------------------------------------


@pytest.mark.parametrize("call, errno_name", REFUSED.items(), ids=list(REFUSED))
def test_a_call_that_leaves_state_on_a_shared_object_is_refused(
    sandbox, native_bot, call, errno_name
):
    assert probe(sandbox, native_bot, call) == f"{call}: {errno_name}"
    assert stray_sandbox_processes() == []


def test_the_calls_beside_them_still_work(sandbox, native_bot):
    said = [probe(sandbox, native_bot, call) for call in ALLOWED]
    assert said == [f"{call}: ok" for call in ALLOWED]
    # mincore is left alone: for a file the bot could not write, the kernel says every page
    # is resident, whatever the page cache holds (it shows nothing of others' reads).
    assert probe(sandbox, native_bot, "mincore") == "mincore: ok all"


@pytest.mark.parametrize("call", THROUGH_WITH_THE_OLD_RULES)
def test_with_the_old_rules_the_same_call_gets_through(old_rules, native_bot, call):
    assert probe(old_rules, native_bot, call) == f"{call}: ok"
    assert stray_sandbox_processes() == []


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64's numbers")
def test_the_filter_reads_an_int_argument_by_its_low_32_bits_only(sandbox):
    """The kernel reads ``fcntl``'s command as an int: a command with bits set above it is
    the same command, and the filter must refuse it too."""
    program = filter_program()
    fcntl, flock, getpid = 72, 73, 39
    for command in RECORD_LOCKS.values():
        for high in (0, 1 << 32, 0xFFFFFFFF << 32):
            verdict = bpf.run(program, fcntl, args=(3, high | command))
            assert verdict == bpf.RET_ERRNO | 37, (command, high)  # ENOLCK
    f_getfl, lock_sh, lock_ex_nb = 3, 1, 6
    assert bpf.run(program, fcntl, args=(3, f_getfl)) == bpf.RET_ALLOW
    assert bpf.run(program, flock, args=(3, lock_sh)) == bpf.RET_ALLOW
    assert bpf.run(program, flock, args=(3, lock_ex_nb)) == bpf.RET_ERRNO | 95  # EOPNOTSUPP
    assert bpf.run(program, getpid) == bpf.RET_ALLOW
    assert {row.op for row in DENIED_WHEN} <= {"equals", "has", "differs"}


def test_a_call_libseccomp_does_not_know_is_refused_by_its_number(sandbox):
    """``numbers`` stands in where libseccomp lacks a name (Debian 12's knows ``cachestat``,
    not ``mseal``, 462 on the unified table): the filter refuses the number, and says so."""
    policy = {"deny": {"mseal": "EPERM"}, "numbers": {"mseal": 462}}
    run = subprocess.run(
        (SECCOMP_PYTHON, "-I", str(EXPORTER), "--pfc"),
        input=json.dumps(policy),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    assert "if ($syscall == 462)\n    action ERRNO(1);" in run.stdout
    if '"mseal"' not in run.stdout:
        assert "libseccomp does not know 'mseal': refused by its number, 462" in run.stderr


# The hostile bots, twins in two live sandboxes. -----------------------------------------

#: Bot -> (folder, script, args) of its launcher; the folder "native" is the compiled one.
CHANNEL_BOTS = {
    "python-locks": (HOSTILE, "lock_channel.py", ()),
    "python-inotify": (HOSTILE, "inotify_channel.py", ()),
    "cpp-locks": ("native", "run.py", ("kernel_objects", "bot", "locks", STDLIB)),
    "cpp-inotify": ("native", "run.py", ("kernel_objects", "bot", "inotify", STDLIB)),
}


def said(result: MatchResult, seat: int) -> dict:
    """The JSON lines a hostile bot wrote to its stderr in one match, merged."""
    lines = [json.loads(line) for line in result.stderr[seat].splitlines() if line.startswith("{")]
    return {key: value for line in lines for key, value in line.items()}


def play_twins(sandbox: Sandbox, native_bot: Path, bot: str) -> tuple[dict, dict, list[str]]:
    """The first seating (the bot in seat 0) kept alive, frozen in its series, while the twin
    (the bot in seat 1, in another sandbox) is played; what each seating's bot said, and
    the hand of seat 0, which the bot in seat 1 tries to read."""
    folder, script, args = CHANNEL_BOTS[bot]
    code = native_bot if folder == "native" else folder

    def hostile():
        return sandbox.launcher(code, script=script, args=args)

    def random():
        return sandbox.launcher(BUILTIN_DIR, script="main.py", args=("random", "7"))

    game = get_game("snag")
    hand = sorted(game.observation(game.new_match(DEAL_SEED, OPTIONS), 0)["hand"])
    quiet = {"limits": LIMITS, "emit": lambda kind, payload: None}
    # The twin's process exists before the first seating plays (an inotify watch must be
    # set before the opens it reports): a series of the swapped seating, one deal ahead.
    with Series([random(), hostile()], matches=2) as twin:
        twin.play(game, game.new_match(WARM_UP_SEED, OPTIONS), **quiet)
        with Series([hostile(), random()], matches=2) as first:
            sent = first.play(game, game.new_match(DEAL_SEED, OPTIONS), **quiet)
            # The first seating's bot is alive, frozen, holding whatever it left.
            received = twin.play(game, game.new_match(DEAL_SEED, OPTIONS), **quiet)
    for result in (sent, received):
        assert result.forfeit is None, (result.forfeit, result.stderr)
    assert stray_sandbox_processes() == []
    return said(sent, 0), said(received, 1), hand


@pytest.mark.parametrize("bot", CHANNEL_BOTS)
def test_the_twin_decodes_nothing(sandbox, native_bot, bot):
    sender, receiver, hand = play_twins(sandbox, native_bot, bot)
    assert sender["hand"] == hand
    assert receiver["hand"] != hand
    assert receiver["decoded"] is None, receiver
    refusal = "ENOLCK" if bot.endswith("locks") else "ENOSYS"
    assert refusal in receiver["error"], receiver
    if bot.endswith("locks"):
        assert sender["encoded"] is None and "ENOLCK" in sender["error"], sender


@pytest.mark.parametrize("bot", CHANNEL_BOTS)
def test_with_the_old_rules_the_twin_decodes_the_whole_hand(old_rules, native_bot, bot):
    """With the host's folders bound, any process of the host that opens the standard library
    (another run making its files resident, or copying them in memory) adds its opens to
    the inotify receiver's: once, in CI, it decoded every carrier. The channel must carry
    the whole hand, and only it, in one of three runs."""
    decoded = []
    for _ in range(3):
        sender, receiver, hand = play_twins(old_rules, native_bot, bot)
        assert sender["hand"] == hand and sender["encoded"] == len(hand)
        decoded.append(receiver["decoded"])
        if receiver["decoded"] == hand:
            break
    else:
        pytest.fail(f"the twin never decoded {hand}: {decoded}")
