"""Native code in the sandbox: small C programs, compiled here, make system calls directly.

A compiled bot never goes through Python's ``socket`` module: it can enter the kernel
through another architecture's entry (``int 0x80``), another ABI (x32), or calls whose
arguments sit in memory (``clone3``). Each attack of ``native/attacks.c`` runs inside the
real sandbox, started by the launcher that starts every uploaded bot (a one-line Python bot
that executes the program in its ``/bot`` folder), and prints what came of it: an errno, or
the signal that killed it. Every attack must be refused with the errno the policy says or
killed by SIGSYS; a few run once more without the filter (every other layer kept) to show
it is the filter that refuses them.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.sandbox import Sandbox
from arena.sandbox.launcher import SANDBOX_ENVIRONMENT
from arena.sandbox.reach import reachable_code_dir
from arena.sandbox.slots import acquire_slot
from tests.bots.conftest import ALLOW_NO_SANDBOX, stray_sandbox_processes

from .launching import EXEC_BOT, run_to_end

SOURCE = Path(__file__).parent / "native" / "attacks.c"
#: The bot the launcher starts: it becomes the compiled program.
RUN_SECONDS = 20.0

pytestmark = pytest.mark.sandbox

X86_64 = platform.machine() == "x86_64"
only_x86_64 = pytest.mark.skipif(not X86_64, reason="an x86_64 entry point")

#: Attack -> what the sandbox gives it.
CONTAINED = {
    "clone3": "ENOSYS",
    "clone_newuser": "EPERM",
    "clone_newnet": "EPERM",
    "unshare_newuser": "EPERM",
    "io_uring_setup": "EPERM",
    "userfaultfd": "EPERM",
    "perf_event_open": "EPERM",
    "ptrace": "EPERM",
    "raw_socket": "EPERM",
    "inet_socket": "EPERM",
    "netlink_socket": "EPERM",
    "inet_socketpair": "EPERM",
    "keyctl": "EPERM",
    "bpf": "EPERM",
    "sysinfo": "EPERM",
    "fadvise64": "EPERM",
}


@pytest.fixture(scope="module")
def native_bot(tmp_path_factory) -> Path:
    """A bot folder holding ``attacks``, compiled from ``native/attacks.c``, and the bot
    that runs it."""
    if shutil.which("gcc") is None:
        message = "gcc is needed to compile the native attacks (make sandbox-deps)"
        if ALLOW_NO_SANDBOX:
            pytest.skip(message)
        pytest.fail(message)
    folder = tmp_path_factory.mktemp("native-bot")
    subprocess.run(
        ["gcc", "-O1", "-Wall", "-Werror", "-o", str(folder / "attacks"), str(SOURCE)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (folder / "run.py").write_text(EXEC_BOT)
    return folder


def run_in_sandbox(sandbox: Sandbox, folder: Path, attack: str) -> str:
    """What ``attacks ATTACK`` prints, run as an uploaded bot is run."""
    spec = sandbox.launcher(folder, script="run.py", args=("attacks", attack)).launch_spec()
    run = run_to_end(spec, RUN_SECONDS)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stdout!r} {run.stderr!r}"
    return run.stdout.strip()


def run_without_filter(sandbox: Sandbox, folder: Path, attack: str) -> str:
    """What ``attacks ATTACK`` prints in the sandbox with every layer but the filter."""
    config = sandbox.config
    slot = acquire_slot(config.lock_dir, config.uid_base, config.slots)
    try:
        argv = sandbox.command(
            slot,
            reachable_code_dir(folder, config.uid_base),
            ("run.py", "attacks", attack),
            None,
            filter_fd=None,
        )
        run = subprocess.run(
            argv,
            cwd="/",
            env=dict(SANDBOX_ENVIRONMENT),
            capture_output=True,
            text=True,
            timeout=RUN_SECONDS,
        )
    finally:
        slot.release()
    assert run.returncode == 0, f"exit {run.returncode}: {run.stdout!r} {run.stderr!r}"
    return run.stdout.strip()


def test_a_compiled_program_runs_and_may_fork(sandbox, native_bot):
    # pytest's folders are private: the bot runs from a copy, whose program stays one.
    copy = reachable_code_dir(native_bot, sandbox.config.uid_base)
    assert copy != native_bot.resolve()
    assert (copy / "attacks").stat().st_mode & 0o777 == 0o755
    assert (copy / "run.py").stat().st_mode & 0o777 == 0o644
    assert run_in_sandbox(sandbox, native_bot, "getpid") == "getpid: ok"
    # fork and a plain clone: clone without namespace flags is allowed.
    assert run_in_sandbox(sandbox, native_bot, "plain_clone") == "plain_clone: ok"
    # A Unix socket pair reaches nothing outside the process (the JVM needs one).
    assert run_in_sandbox(sandbox, native_bot, "unix_socketpair") == "unix_socketpair: ok"
    assert stray_sandbox_processes() == []


@pytest.mark.parametrize("attack, outcome", CONTAINED.items(), ids=list(CONTAINED))
def test_a_direct_system_call_is_refused(sandbox, native_bot, attack, outcome):
    assert run_in_sandbox(sandbox, native_bot, attack) == f"{attack}: {outcome}"
    assert stray_sandbox_processes() == []


@only_x86_64
@pytest.mark.parametrize("attack", ["int80_socket", "x32_socket"])
def test_another_entry_into_the_kernel_kills_the_program(sandbox, native_bot, attack):
    """``int 0x80`` (the i386 table, where socket is 359) and the x32 ABI (x86_64's numbers
    with bit 30): a second syscall table that a deny-list by number would let through."""
    assert run_in_sandbox(sandbox, native_bot, attack) == f"{attack}: killed SYS"
    assert stray_sandbox_processes() == []


#: Attacks that the layers other than the filter let through on any kernel.
THROUGH_WITHOUT_FILTER = [
    "ptrace",
    "inet_socket",
    "netlink_socket",
    "keyctl",
    "sysinfo",
    "fadvise64",
]


@pytest.mark.parametrize("attack", THROUGH_WITHOUT_FILTER)
def test_without_the_filter_the_same_call_gets_through(sandbox, native_bot, attack):
    assert run_without_filter(sandbox, native_bot, attack) == f"{attack}: ok"
    assert stray_sandbox_processes() == []


@only_x86_64
@pytest.mark.parametrize("attack", ["int80_socket", "x32_socket"])
def test_without_the_filter_nothing_kills_another_entry(sandbox, native_bot, attack):
    # What the kernel answers depends on its build (IA32 emulation, the x32 ABI): no kill.
    said = run_without_filter(sandbox, native_bot, attack)
    assert said.startswith(f"{attack}: ") and "killed" not in said, said
