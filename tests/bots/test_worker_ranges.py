"""Real workers without ``BAIZE_SANDBOX_UID_BASE``, on PostgreSQL and Redis
(``bots.worker_sandbox``): two side by side lease ranges of their own and both take uploaded
code; one SIGKILLed while one of its bots is frozen leaves a range the next worker takes,
ending that bot, and plays in; one below full takes uploaded code once the cause is gone. On
this host's cgroups, as the probe finds them.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from arena.bot_code import BotCode, store_code
from arena.sandbox import SandboxConfig
from arena.sandbox.cgroups import process_slot_folders
from arena.sandbox.leftovers import live_processes
from arena.sandbox.reach import runtime_dir
from base.queues import SANDBOXED_QUEUE
from bots.models import Bot, BotVersion, SandboxRange
from bots.services.upload import bot_version_upload
from monitoring.models import WorkerHeartbeat
from tests.tournaments.conftest import SHORT_SNAG, wait_until, worker_kill
from tournaments.models import Tournament, TournamentMatch, current
from tournaments.services import round_robin_create

from .uploads import GOOD_BOT

pytestmark = [pytest.mark.services, pytest.mark.sandbox]

#: Ranges of this run's own, away from every other run's and deployment's on the host.
RANGES_BASE = 200_000_000 + (os.getpid() % 1000) * 1_000_000
RANGES, SLOTS = 4, 8
#: It thinks a little at each decision: its opponent is frozen meanwhile, most of the time.
SLOW_BOT = GOOD_BOT.replace(
    b'print("thinking", file=sys.stderr, flush=True)', b"__import__('time').sleep(0.05)"
)


@pytest.fixture
def _tasks_in_process():
    """Here the workers are the subject: checks go to the broker as in production."""


@pytest.fixture(autouse=True)
def _ranges_forgotten():
    """The run's ranges are its own: their code copies and slot locks go with the test."""
    yield
    for index in range(RANGES):
        uid_base = RANGES_BASE + index * 100_000
        shutil.rmtree(runtime_dir(uid_base), ignore_errors=True)
        lock_dir = SandboxConfig(state_dir=Path("."), uid_base=uid_base).lock_dir
        shutil.rmtree(lock_dir, ignore_errors=True)


def leasing(**env: str) -> dict[str, str]:
    """A worker that leases its range (no fixed base) among the run's own ranges."""
    return {
        "BAIZE_SANDBOX_UID_BASE": "",
        "BAIZE_SANDBOX_RANGES_BASE": str(RANGES_BASE),
        "BAIZE_SANDBOX_RANGES": str(RANGES),
        "BAIZE_SANDBOX_SLOTS": str(SLOTS),
        **env,
    }


def held_by(worker) -> SandboxRange | None:
    return SandboxRange.objects.filter(holder__endswith=f" pid {worker.pid}").first()


def heartbeat_of(worker) -> WorkerHeartbeat | None:
    return WorkerHeartbeat.objects.filter(pid=worker.pid).first()


def takes_uploads(worker) -> bool:
    beat = heartbeat_of(worker)
    return beat is not None and beat.sandbox == "full" and SANDBOXED_QUEUE in beat.queue_names


def uploaded(owner: User, name: str, source: bytes, store: Path) -> BotVersion:
    code = BotCode({"bot.py": source})
    store_code(code, store)
    bot = Bot.objects.create(owner=owner, game="snag", name=name)
    return BotVersion.objects.create(
        bot=bot, number=1, content_hash=code.content_hash, size=code.size, status="ready"
    )


@pytest.mark.slow(seconds=20)
def test_two_workers_without_a_uid_base_lease_ranges_of_their_own_and_both_take_uploads(
    celery_workers, code_store
):
    first = celery_workers(**leasing(BAIZE_BOT_CODE_DIR=str(code_store)))
    second = celery_workers(**leasing(BAIZE_BOT_CODE_DIR=str(code_store)))

    ranges = [held_by(first), held_by(second)]
    assert sorted(held.index for held in ranges) == [0, 1]
    assert sorted(held.uid_base for held in ranges) == [RANGES_BASE, RANGES_BASE + 100_000]
    wait_until(
        lambda: all(takes_uploads(worker) for worker in (first, second)),
        "both workers to say sandbox full and take the sandboxed queue",
    )

    first.terminate()
    first.wait(timeout=30)
    released = SandboxRange.objects.get(pk=ranges[0].pk)
    assert (released.holder, released.index) == ("", ranges[0].index)
    assert held_by(second).pk == ranges[1].pk


def frozen_bots(uid_base: int) -> list[int]:
    """The processes under the range's uids that their slot's freezer holds."""
    frozen = []
    for pid, uid in live_processes(uid_base, SLOTS).items():
        for folder in process_slot_folders(pid, uid_base, uid - uid_base):
            for name, value in (("freezer.state", "FROZEN"), ("cgroup.freeze", "1")):
                state = folder / name
                if state.exists() and state.read_text().strip() == value:
                    frozen.append(pid)
    return frozen


@pytest.mark.slow(seconds=25)
def test_a_worker_killed_with_a_bot_frozen_leaves_a_range_the_next_worker_clears_and_plays_in(
    celery_workers, sandbox, code_store
):
    if sandbox.cgroups is None or "freezer" not in sandbox.cgroups.roots:
        pytest.skip("no freezer cgroup here: a bot stopped by SIGSTOP dies with its worker")
    fast = {
        "BAIZE_BOT_CODE_DIR": str(code_store),
        "BAIZE_SANDBOX_LEASE_SECONDS": "3",
        # The killed worker's match lease lapses, and its set's other match is sent again.
        "BAIZE_MATCH_LEASE_SECONDS": "3",
        "BAIZE_MATCH_REDISPATCH_SECONDS": "3",
    }
    first = celery_workers(**leasing(**fast))
    owner = User.objects.create_user("ranges")
    tournament = round_robin_create(
        name="a worker dies",
        game_id="snag",
        versions=[
            uploaded(owner, "slow", SLOW_BOT, code_store),
            uploaded(owner, "quick", GOOD_BOT, code_store),
        ],
        options=SHORT_SNAG,
        secret=11,
    )
    dead_range = held_by(first)
    frozen: list[int] = []
    wait_until(lambda: frozen.extend(frozen_bots(dead_range.uid_base)) or frozen, "a frozen bot")

    worker_kill(first)  # its pool too: the frozen bot's runner dies with it
    time.sleep(1)
    if sandbox.cgroups.version == 1:
        # A task a v1 freezer holds cannot die: the bot outlives its worker.
        assert set(frozen) <= set(live_processes(dead_range.uid_base, SLOTS))
    wait_until(
        lambda: SandboxRange.objects.get(pk=dead_range.pk).expires_at < timezone.now(),
        "the dead worker's lease to lapse",
    )
    second = celery_workers(beat=True, BAIZE_TICK_SECONDS="1", **leasing(**fast))

    assert held_by(second).pk == dead_range.pk, "the next worker takes the lapsed range"
    assert not set(frozen) & set(live_processes(dead_range.uid_base, SLOTS))
    wait_until(
        lambda: Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED,
        "the tournament to finish on the next worker",
    )
    links = TournamentMatch.objects.filter(current(), tournament=tournament)
    assert {link.match.status for link in links.select_related("match")} == {"finished"}
    assert TournamentMatch.objects.filter(tournament=tournament, replaced_at__isnull=False)


@pytest.mark.slow(seconds=20)
def test_a_worker_below_full_takes_uploaded_code_once_what_kept_it_below_is_gone(
    celery_workers, code_store, tmp_path
):
    python = tmp_path / "bots-python" / "python3"  # not there yet: the probe says none
    worker = celery_workers(
        **leasing(
            BAIZE_BOT_CODE_DIR=str(code_store),
            BAIZE_SANDBOX_PYTHON=str(python),
            BAIZE_SANDBOX_REPROBE_SECONDS="1",
        )
    )
    wait_until(lambda: heartbeat_of(worker), "the worker's heartbeat")
    beat = heartbeat_of(worker)
    assert beat.sandbox == "none" and SANDBOXED_QUEUE not in beat.queue_names
    bot = Bot.objects.create(owner=User.objects.create_user("dana"), game="snag", name="danas")
    version = bot_version_upload(bot=bot, filename="bot.py", data=GOOD_BOT)
    time.sleep(2)  # time enough to have taken the check, had it consumed that queue
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.PENDING

    python.parent.mkdir()
    python.symlink_to("/usr/bin/python3")

    wait_until(
        lambda: BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.READY,
        "the worker, full now, to check the upload",
    )
    wait_until(lambda: takes_uploads(worker), "its heartbeat to say so")
