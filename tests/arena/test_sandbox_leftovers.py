"""A bot its slot's freezer held when its runner died is ended by the next holder of its range
(``arena.sandbox.leftovers``), on this host's cgroups as the probe finds them."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
import uuid

import pytest

from arena.sandbox import SandboxConfig, probe_sandbox
from arena.sandbox.cgroups import own_slot_folders
from arena.sandbox.control import CgroupFreezer
from arena.sandbox.leftovers import leftovers_end, live_processes
from arena.sandbox.probe import UID_BASE_STEP
from arena.sandbox.reach import runtime_dir

from .test_sandbox_uid_range import reachable_folder

SLOTS = 2
SLEEPER = "import sys\nprint('up', flush=True)\nsys.stdin.read()\n"


@pytest.mark.sandbox
def test_a_frozen_bot_its_runner_left_is_thawed_ended_and_its_slot_cgroups_removed(
    sandbox, settings
):
    uid_base = random.randrange(100, 140) * UID_BASE_STEP + random.randrange(0, 1000) * 64
    mine = probe_sandbox(
        SandboxConfig(
            state_dir=reachable_folder(settings, uuid.uuid4().hex), uid_base=uid_base, slots=SLOTS
        )
    )
    assert mine.report.safe, mine.report.describe()
    code = reachable_folder(settings, uuid.uuid4().hex)
    (code / "bot.py").write_text(SLEEPER)
    (code / "bot.py").chmod(0o644)
    spec = mine.launcher(code).launch_spec()
    bot = subprocess.Popen(
        spec.argv,
        cwd=spec.cwd,
        env=dict(spec.env),
        pass_fds=spec.pass_fds,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert bot.stdout.readline() == b"up\n"
        spec.control.freeze()
        # The runner dies: the parent-death signal is all its bot gets.
        left = sorted(live_processes(uid_base, SLOTS))
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.3)
        v1_freezer = isinstance(spec.control.freezer, CgroupFreezer) and (mine.cgroups.version == 1)
        if v1_freezer:
            # A task a v1 freezer holds cannot die: it waits for a thaw nobody will send.
            assert sorted(live_processes(uid_base, SLOTS)) == left

        leftovers = leftovers_end(uid_base, SLOTS)

        assert live_processes(uid_base, SLOTS) == {}
        assert set(leftovers.ended) <= set(left) and leftovers.remaining == ()
        if isinstance(spec.control.freezer, CgroupFreezer):
            assert leftovers.thawed, leftovers
            assert "thawed 1 frozen slot cgroup(s)" in leftovers.describe()
        if mine.cgroups is not None:
            assert leftovers.removed and own_slot_folders(uid_base) == ()
    finally:
        spec.control.close()
        bot.kill()
        bot.wait()
        for fd in spec.pass_fds:
            os.close(fd)
        leftovers_end(uid_base, SLOTS)
        spec.on_close()
        # This test's range is of its own: its staged libraries and slot locks go with it.
        shutil.rmtree(runtime_dir(uid_base), ignore_errors=True)
        shutil.rmtree(mine.config.lock_dir, ignore_errors=True)
