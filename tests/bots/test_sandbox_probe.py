"""The probe names the missing layer and the level; the seccomp filter is a sound program."""

from __future__ import annotations

import json
import struct
import uuid

import pytest

from bots.runner import BUILTIN_MAIN, BotProcess
from bots.sandbox import SandboxConfig, SandboxLevel, probe_sandbox
from bots.sandbox.reach import others_can_reach, reachable_code_dir
from bots.sandbox.seccomp import SeccompUnsupported, filter_instructions, filter_program
from bots.sandbox.slots import acquire_slot


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


def test_every_jump_of_the_filter_lands_inside_it():
    program = filter_instructions("x86_64")
    for index, (code, jt, jf, _) in enumerate(program):
        if code & 0x07 == 0x05:  # BPF_JMP
            assert index + 1 + max(jt, jf) < len(program)
    assert program[-1] == (0x06, 0, 0, 0x7FFF0000)  # the last word allows


def test_the_filter_is_packed_as_sock_filter_structs():
    data = filter_program("x86_64")
    assert len(data) == 8 * len(filter_instructions("x86_64"))
    assert struct.unpack_from("=HBBI", data, 0) == (0x20, 0, 0, 4)  # load the architecture


def test_an_architecture_without_a_table_is_unsupported():
    with pytest.raises(SeccompUnsupported, match="aarch64"):
        filter_program("aarch64")


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
