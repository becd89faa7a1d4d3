"""What the host shows a sandboxed bot: nothing that moves with another bot's activity.

Two bots running at once (a duplicate set's twins cannot, but other matches do) must not
be able to signal through host-wide figures. One test lists what a bot can read under
``/proc`` and ``/sys``; the other runs a second sandbox that moves every host-wide figure
it can while the first samples everything it can read, which must not change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.runner import BotProcess
from arena.sandbox.procview import STATIC_FILES, STATIC_FOLDERS, meminfo_text

HOST_VIEW = Path(__file__).parent / "hostview"
#: The host-wide figures a bot was seen, or could be expected, to read and move.
MOVING = (
    "meminfo",
    "vmstat",
    "stat",
    "loadavg",
    "uptime",
    "diskstats",
    "interrupts",
    "softirqs",
    "schedstat",
    "zoneinfo",
    "buddyinfo",
    "slabinfo",
    "locks",
    "swaps",
    "cgroups",
    "pressure/cpu",
    "pressure/memory",
    "pressure/io",
    "sys/fs/inode-nr",
    "sys/fs/file-nr",
    "sys/fs/dentry-state",
    "sys/kernel/random/entropy_avail",
)

pytestmark = pytest.mark.sandbox


def sample(bot: BotProcess) -> dict:
    reply, _ = bot.request(b"sample\n", timeout=20)
    return json.loads(reply)


def test_a_bot_reads_under_proc_only_its_own_processes_static_files_and_constants(sandbox):
    view = sandbox.proc_view
    with BotProcess(sandbox.launcher(HOST_VIEW, script="sampler.py").launch_spec()) as bot:
        seen = set(sample(bot)["paths"])

    assert not any(path.startswith("/sys") for path in seen), "/sys is not mounted"
    top = {path.split("/")[2] for path in seen}
    assert top <= STATIC_FILES | STATIC_FOLDERS | set(view.files), sorted(
        top - STATIC_FILES - STATIC_FOLDERS - set(view.files)
    )
    for name in MOVING:
        path = f"/proc/{name}"
        head = name.split("/")[0]
        if head in view.folders:
            assert path not in seen, f"{path} shows through an emptied folder"
        elif path in seen:
            assert head in view.files, f"{path} is the host's"
    meminfo = (view.folder / f"meminfo-{sandbox.config.limits.memory_bytes}").read_text()
    assert meminfo == meminfo_text(sandbox.config.limits.memory_bytes)
    assert "MemTotal:" in meminfo and "Mlocked:" in meminfo


def test_a_second_sandbox_moving_every_host_figure_moves_nothing_the_first_can_read(sandbox):
    sampler = BotProcess(sandbox.launcher(HOST_VIEW, script="sampler.py").launch_spec())
    mover = BotProcess(sandbox.launcher(HOST_VIEW, script="mover.py").launch_spec())
    with sampler, mover:
        baseline = sample(sampler)
        before = sample(sampler)
        reply, _ = mover.request(b"go\n", timeout=20)
        said = json.loads(reply)
        during = [sample(sampler) for _ in range(5)]

    assert said["mlock"] == -1 and said["mlock_errno"] in (1, 11, 12), said  # EPERM, EAGAIN, ENOMEM
    assert said["sysinfo"] == -1 and said["sysinfo_errno"] == 1, said  # EPERM
    assert baseline["files"] > 20, "the sampler read next to nothing: the test would be blind"
    assert before["moved"] == [], f"these moved on their own: {before['moved']}"
    for snapshot in during:
        moved = snapshot["moved"]
        assert moved == [], f"these moved with the other sandbox's activity: {moved}"
