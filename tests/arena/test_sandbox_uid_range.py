"""Two Baize instances on one host must not share the sandbox's slot uids: the probe of the
second names the first's processes and the setting that gives it a range of its own."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from arena.sandbox import SandboxConfig, SandboxLevel, probe_sandbox
from arena.sandbox.probe import UID_BASE_STEP
from arena.sandbox.slots import processes_of_uid

#: Another instance: its own temporary folder (so its own slot locks, as in another
#: container), the same uid base; it runs one bot in its sandbox until its stdin closes.
#: It imports Baize from the test's working folder (the checkout) as root; its bot's code,
#: under the checkout's ``var``, is copied for the slot uids into its temporary folder when
#: the checkout is closed to them (a clone in ``mktemp -d``, mode 0700), so that folder must
#: be open to them.
OTHER_INSTANCE = """
import subprocess, sys
from pathlib import Path
from arena.sandbox import SandboxConfig, probe_sandbox

state_dir, uid_base = Path(sys.argv[1]), int(sys.argv[2])
sandbox = probe_sandbox(SandboxConfig(state_dir=state_dir, uid_base=uid_base, slots=4))
assert sandbox.report.safe, sandbox.report.describe()
code = state_dir / "sleeper"
code.mkdir(mode=0o755)
(code / "bot.py").write_text("import sys\\nprint('up', flush=True)\\nsys.stdin.read()\\n")
(code / "bot.py").chmod(0o644)
spec = sandbox.launcher(code).launch_spec()
bot = subprocess.Popen(spec.argv, cwd=spec.cwd, env=dict(spec.env), pass_fds=spec.pass_fds,
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
assert bot.stdout.readline() == b"up\\n"
print("holding", flush=True)
sys.stdin.read()
bot.kill()
bot.wait()
spec.on_close()
"""


def reachable_folder(settings, name: str):
    folder = settings.VAR_DIR / "probes" / name
    folder.mkdir(parents=True)
    for path in (folder.parent, folder):
        path.chmod(0o755)
    return folder


@pytest.mark.sandbox
def test_a_uid_range_another_instance_runs_bots_in_is_named_with_the_setting_to_change(
    sandbox, settings, tmp_path
):
    # A base of this test's own, away from every other instance's on the machine.
    uid_base = random.randrange(40, 90) * UID_BASE_STEP + random.randrange(0, 1000) * 64
    # Not under tmp_path: pytest's base temporary folder is closed to others (0700).
    other_tmp = Path(tempfile.mkdtemp(prefix="baize-other-instance-"))
    other_tmp.chmod(0o755)
    env = {**os.environ, "TMPDIR": str(other_tmp)}
    other_stderr = (tmp_path / "other-instance.stderr").open("w+")
    other = subprocess.Popen(
        [
            sys.executable,
            "-c",
            OTHER_INSTANCE,
            str(reachable_folder(settings, uuid.uuid4().hex)),
            str(uid_base),
        ],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=other_stderr,
        text=True,
    )

    def what_the_other_said() -> str:
        other_stderr.seek(0)
        return f"the other instance's stderr:\n{other_stderr.read()}"

    try:
        line = other.stdout.readline()
        assert line == "holding\n", f"it printed {line!r}, not holding; {what_the_other_said()}"
        held = [p.pid for p in processes_of_uid(uid_base) if p.state != "Z"]
        assert held

        mine = probe_sandbox(
            SandboxConfig(
                state_dir=reachable_folder(settings, uuid.uuid4().hex), uid_base=uid_base, slots=4
            )
        )

        assert mine.report.level is SandboxLevel.NONE
        why = mine.report.layers["uid"]
        assert why.startswith(
            f"the slot uids {uid_base}-{uid_base + 3} are in use by another Baize instance"
            f" on this host (uid {uid_base}: pids "
        )
        assert str(held[0]) in why
        assert why.endswith(
            "give each instance a range of its own,"
            f" set BAIZE_SANDBOX_UID_BASE={uid_base + UID_BASE_STEP}"
        )
        assert "uploaded bots are refused" in mine.report.describe()
        # The probe took no slot, so it killed nothing of the other instance's.
        assert [p.pid for p in processes_of_uid(uid_base) if p.state != "Z"] == held
    finally:
        other.stdin.close()
        try:
            assert other.wait(timeout=30) == 0, what_the_other_said()
        finally:
            other_stderr.close()
            shutil.rmtree(other_tmp, ignore_errors=True)
    assert [p.pid for p in processes_of_uid(uid_base) if p.state != "Z"] == []


@pytest.mark.sandbox
def test_bots_of_this_instance_in_its_own_range_are_no_other_instance(sandbox, settings):
    config = SandboxConfig(
        state_dir=reachable_folder(settings, uuid.uuid4().hex),
        uid_base=sandbox.config.uid_base,
        slots=sandbox.config.slots,
    )
    code = reachable_folder(settings, uuid.uuid4().hex)
    (code / "bot.py").write_text("import sys\nprint('up', flush=True)\nsys.stdin.read()\n")
    (code / "bot.py").chmod(0o644)
    spec = sandbox.launcher(code).launch_spec()
    bot = subprocess.Popen(
        spec.argv,
        cwd=spec.cwd,
        env=dict(spec.env),
        pass_fds=spec.pass_fds,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert bot.stdout.readline() == b"up\n"
        assert probe_sandbox(config).report.layers["uid"] == "ok"
    finally:
        bot.kill()
        bot.wait()
        for fd in spec.pass_fds:
            os.close(fd)
        spec.on_close()
