"""The probe names the missing layer and the level; libseccomp's filter holds the policy."""

from __future__ import annotations

import errno
import json
import os
import platform
import subprocess
import sys
import uuid

import pytest

from arena.runner import BUILTIN_MAIN, BotProcess
from arena.sandbox import SandboxConfig, SandboxLevel, probe_sandbox
from arena.sandbox.reach import others_can_reach, reachable_code_dir
from arena.sandbox.seccomp import (
    CLONE_NAMESPACE_FLAGS,
    DENIED,
    EXPORTER,
    SECCOMP_PYTHON,
    SeccompUnavailable,
    filter_program,
)
from arena.sandbox.slots import acquire_slot
from tests.bots.conftest import ALLOW_NO_SANDBOX

from . import bpf


@pytest.fixture
def state_dir(settings):
    """A sandbox state folder the slot uids can traverse (pytest's tmp_path is private)."""
    folder = settings.VAR_DIR / "probes" / uuid.uuid4().hex
    folder.mkdir(parents=True)
    for path in (folder.parent, folder):
        path.chmod(0o755)
    return folder


@pytest.mark.sandbox
def test_without_bubblewrap_the_level_is_limits_and_uploads_are_refused(sandbox, state_dir):
    sandbox = probe_sandbox(SandboxConfig(state_dir=state_dir, bwrap="/nonexistent/bwrap"))
    report = sandbox.report
    assert report.level is SandboxLevel.LIMITS
    assert not report.safe
    assert report.layers["namespaces"] == "/nonexistent/bwrap not found"
    assert "below full" in report.reason and "bwrap not found" in report.reason


def test_without_the_bots_interpreter_nothing_runs(tmp_path):
    sandbox = probe_sandbox(SandboxConfig(state_dir=tmp_path, python="/nonexistent/python3"))
    assert sandbox.report.level is SandboxLevel.NONE
    assert "does not run" in sandbox.report.layers["python"]


@pytest.mark.sandbox
def test_with_every_layer_the_probe_bot_proves_the_full_level(sandbox, state_dir):
    probed = probe_sandbox(SandboxConfig(state_dir=state_dir))
    assert probed.report.level is SandboxLevel.FULL
    assert "sandbox level: full" in probed.report.describe()


@pytest.mark.sandbox
def test_a_state_folder_the_bots_cannot_reach_still_gives_the_full_level(sandbox, tmp_path):
    private = tmp_path / "home"
    private.mkdir(mode=0o700)  # as root's home on this machine kind

    probed = probe_sandbox(SandboxConfig(state_dir=private / "sandbox"))

    assert probed.report.level is SandboxLevel.FULL, probed.report.reason


@pytest.mark.sandbox
def test_a_bot_in_a_folder_others_cannot_enter_plays_from_a_copy_they_can_read(sandbox, tmp_path):
    private = tmp_path / "home"
    code = private / "checkout" / "bot"
    code.mkdir(parents=True)
    private.chmod(0o700)
    (code / "bot.py").write_text(BUILTIN_MAIN.read_text())
    (code / "strategies").symlink_to(BUILTIN_MAIN.parent / "strategies")
    launcher = sandbox.launcher(code, script="bot.py", args=("random", "3"))

    with BotProcess(launcher.launch_spec()) as bot:
        bot.send(b'{"type": "start", "game": "snag", "seat": 0, "options": {}}\n', timeout=5)
        assert json.loads(bot.receive(timeout=10))["type"] == "ready"
    copy = reachable_code_dir(code, sandbox.config.uid_base)
    assert copy != code and others_can_reach(copy)
    assert (copy / "bot.py").read_text() == BUILTIN_MAIN.read_text()


@pytest.fixture(scope="module")
def exported_filter() -> bytes:
    """The filter as libseccomp exports it here (Debian's python3-seccomp)."""
    try:
        return filter_program()
    except SeccompUnavailable as error:
        message = f"libseccomp cannot build the filter here: {error}"
        if ALLOW_NO_SANDBOX:
            pytest.skip(message)
        pytest.fail(message)


x86_64_only = pytest.mark.skipif(
    platform.machine() != "x86_64", reason="these numbers are x86_64's; the filter is native"
)


@x86_64_only
def test_the_filter_answers_the_denied_calls_and_allows_the_rest(exported_filter):
    socket, ptrace, sysinfo, getpid, clone3, io_uring_setup = 41, 101, 99, 39, 435, 425
    for number in (socket, ptrace, sysinfo, io_uring_setup):
        assert bpf.run(exported_filter, number) == bpf.RET_ERRNO | errno.EPERM, number
    assert bpf.run(exported_filter, clone3) == bpf.RET_ERRNO | errno.ENOSYS
    assert bpf.run(exported_filter, getpid) == bpf.RET_ALLOW


@x86_64_only
def test_clone_is_refused_with_any_namespace_flag_only(exported_filter):
    clone, sigchld = 56, 17
    threads = 0x003D0F00  # glibc's pthread_create flags
    assert bpf.run(exported_filter, clone, args=(sigchld,)) == bpf.RET_ALLOW
    assert bpf.run(exported_filter, clone, args=(threads,)) == bpf.RET_ALLOW
    for name, flag in CLONE_NAMESPACE_FLAGS.items():
        verdict = bpf.run(exported_filter, clone, args=(flag | sigchld,))
        assert verdict == bpf.RET_ERRNO | errno.EPERM, name
    # The kernel reads the low 32 bits of the flags; bits above them change nothing.
    newuser_high = (1 << 32) | CLONE_NAMESPACE_FLAGS["CLONE_NEWUSER"]
    assert bpf.run(exported_filter, clone, args=(newuser_high,)) == bpf.RET_ERRNO | errno.EPERM


@x86_64_only
def test_a_foreign_architecture_or_the_x32_abi_kills_the_process(exported_filter):
    getpid, i386_socket = 39, 359
    assert bpf.run(exported_filter, i386_socket, arch=bpf.AUDIT_ARCH_I386) == bpf.RET_KILL_PROCESS
    assert bpf.run(exported_filter, 20, arch=bpf.AUDIT_ARCH_I386) == bpf.RET_KILL_PROCESS
    x32_getpid = bpf.X32_SYSCALL_BIT | getpid
    assert bpf.run(exported_filter, x32_getpid) == bpf.RET_KILL_PROCESS


def test_every_name_of_the_table_is_in_the_readable_filter():
    try:
        readable = filter_program(readable=True).decode()
    except SeccompUnavailable as error:
        if ALLOW_NO_SANDBOX:
            pytest.skip(str(error))
        raise
    for name in (*DENIED, "clone"):
        assert f'filter for syscall "{name}"' in readable, name
    assert "invalid architecture action\naction KILL_PROCESS;" in readable


def test_a_name_libseccomp_does_not_know_fails_the_build_and_names_it():
    if not os.path.exists(SECCOMP_PYTHON):
        pytest.skip(f"no {SECCOMP_PYTHON}")
    policy = {"deny": {"no_such_call": "EPERM"}, "clone_flags": [], "clone_action": "EPERM"}
    run = subprocess.run(
        (SECCOMP_PYTHON, "-I", str(EXPORTER)),
        input=json.dumps(policy),
        capture_output=True,
        text=True,
        timeout=30,
    )
    if run.returncode == 3 and ALLOW_NO_SANDBOX:
        pytest.skip(run.stderr)
    assert run.returncode == 4, run.stderr
    assert "cannot deny 'no_such_call'" in run.stderr and not run.stdout


def test_without_libseccomps_binding_there_is_no_filter_and_it_says_why(tmp_path):
    venv_python = sys.executable  # the worker's virtual environment: no python3-seccomp
    with pytest.raises(SeccompUnavailable, match="python3-seccomp"):
        filter_program(venv_python)
    with pytest.raises(SeccompUnavailable, match="/nonexistent/python3"):
        filter_program("/nonexistent/python3")


@pytest.mark.sandbox
def test_without_libseccomp_the_level_stays_below_full_and_says_why(sandbox, state_dir):
    config = SandboxConfig(state_dir=state_dir, seccomp_python=sys.executable)
    report = probe_sandbox(config).report
    assert report.level is SandboxLevel.NAMESPACES
    assert not report.safe
    assert report.layers["seccomp"].startswith("no seccomp filter: ")
    assert "python3-seccomp" in report.layers["seccomp"]
    assert "below full" in report.reason and "python3-seccomp" in report.reason


def test_the_sandbox_command_says_what_bounds_a_bots_memory_and_how_turns_are_kept(capsys):
    from django.core.management import call_command

    from bots.services.launch import current_sandbox

    if not current_sandbox().report.safe:
        pytest.skip("this machine's sandbox is below full")
    call_command("sandbox")

    out = capsys.readouterr().out
    assert "/tmp and /dev/shm (capped tmpfs" in out
    assert "turns: only the bot to move runs: while one decides, " in out
    if current_sandbox().cgroups is None:
        assert "every process of the other bot's uid is stopped (SIGSTOP" in out
    cgroups = current_sandbox().cgroups
    if cgroups is None or not cgroups.memory:
        assert "memory: at most 512 MiB of address space (prlimit)" in out
    else:
        assert "memory: at most 512 MiB in all" in out
        assert "slot's memory cgroup" in out


def test_a_slot_cgroup_takes_each_tournaments_limit_lower_or_higher(sandbox):
    cgroups = sandbox.cgroups
    if cgroups is None or not cgroups.memory:
        pytest.skip(f"no slot memory cgroups on this host: {sandbox.report.memory}")
    config = sandbox.config
    slot = acquire_slot(config.lock_dir, config.uid_base, config.slots)
    limit_file = "memory.limit_in_bytes" if cgroups.version == 1 else "memory.max"
    try:
        for limit in (96 << 20, 1 << 30, 64 << 20):
            cgroups.prepare(slot.index, limit)
            folder = cgroups.slot_folder("memory", slot.index)
            assert int((folder / limit_file).read_text()) == limit
    finally:
        slot.release()
