"""Sandbox uid ranges: the fixed one of settings, or one a worker leases on its host.

Every bot slot is a uid of the host (``arena.sandbox.slots``), so two workers on one host,
whether two containers of one compose service or two processes, need ranges apart: sharing
one, each would count the other's bots against every bot's process limit and kill them when
it sweeps a slot. ``BAIZE_SANDBOX_UID_BASE`` set fixes the range, and keeping instances apart
is the operator's care. Unset, a Celery worker leases a range of its host when it starts
(``bots.worker_sandbox``), before its pool processes fork, so that they inherit it: the
first range that no live worker holds and no process of another instance runs under, or
one whose holder stopped renewing its lease (``BAIZE_SANDBOX_LEASE_SECONDS``). A process
that leases none (``manage.py play --sandbox``, a web process that runs checks in-process)
uses ``BAIZE_SANDBOX_UNLEASED_UID_BASE``.

The leases are rows of the database (``SandboxRange``), which every worker of every host
reaches; a range is keyed by its host's identity, the kernel's boot id, which every
container of one host reads alike and no two hosts share (bots of two hosts never share a
kernel, so they may share uids). One host's rows are only written by that host's workers,
on the host's one clock.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from arena.sandbox.leftovers import live_processes

from ..models import SandboxRange

logger = logging.getLogger(__name__)

#: The kernel's boot id: one per host and boot, the same in each of its containers.
HOST_ID_FILE = Path("/proc/sys/kernel/random/boot_id")
#: Rows of other hosts whose lease lapsed this long ago are deleted (a host rebooted has
#: another boot id, and its old rows would stay for ever).
FORGOTTEN_AFTER = timedelta(days=7)


def host_identity() -> str:
    return HOST_ID_FILE.read_text().strip()


@dataclass(frozen=True)
class RangeLease:
    """A range of slot uids held by one worker."""

    host: str
    index: int
    uid_base: int
    slots: int
    holder: str
    #: The holder whose lapsed lease this one took over, "" if the range was free.
    taken_from: str = ""
    #: When that holder's lease lapsed.
    lapsed_at: datetime | None = None

    @property
    def uids(self) -> str:
        return f"{self.uid_base}-{self.uid_base + self.slots - 1}"

    def describe(self) -> str:
        return f"uids {self.uids}: range {self.index} of host {self.host}, leased by {self.holder}"


#: The lease this process holds, or that its worker took before forking it.
_held: RangeLease | None = None


def sandbox_uid_base() -> int:
    """This process's first slot uid: the fixed one of settings, else its worker's leased
    one, else the one of processes that lease none."""
    if settings.BAIZE_SANDBOX_UID_BASE is not None:
        return settings.BAIZE_SANDBOX_UID_BASE
    if _held is not None:
        return _held.uid_base
    return settings.BAIZE_SANDBOX_UNLEASED_UID_BASE


def held_range() -> RangeLease | None:
    return _held


def range_hold(lease: RangeLease | None) -> None:
    """Make ``lease`` this process's range (None: none)."""
    global _held
    _held = lease


def worker_range_record(lease: RangeLease | None) -> None:
    """Say in the sandbox folder which range this worker holds (None: none any more), for
    ``manage.py sandbox`` (``worker_ranges_here``)."""
    record = _lease_file(os.getpid())
    if lease is None:
        record.unlink(missing_ok=True)
        return
    record.parent.mkdir(parents=True, exist_ok=True)
    partial = record.with_suffix(".tmp")
    partial.write_text(json.dumps({**asdict(lease), "lapsed_at": None, "pid": os.getpid()}))
    partial.replace(record)


def worker_ranges_here() -> list[RangeLease]:
    """The ranges the live workers of this host (of this sandbox folder) hold, newest first."""
    found = []
    for record in sorted(_lease_file(0).parent.glob("worker-*.json")):
        try:
            facts = json.loads(record.read_text())
            os.kill(facts.pop("pid"), 0)
        except ProcessLookupError:
            record.unlink(missing_ok=True)  # its worker died without releasing
            continue
        except (OSError, ValueError, KeyError):
            continue
        found.append((record.stat().st_mtime, RangeLease(**facts)))
    return [lease for _, lease in sorted(found, key=lambda item: item[0], reverse=True)]


def _lease_file(pid: int) -> Path:
    return Path(settings.BAIZE_SANDBOX_DIR) / "leases" / f"worker-{pid}.json"


def range_base(index: int) -> int:
    return settings.BAIZE_SANDBOX_RANGES_BASE + index * settings.BAIZE_SANDBOX_RANGE_STEP


def uids_in_use(uid_base: int, slots: int) -> list[int]:
    """The live processes under the uids, which a range no worker holds should have none of."""
    return sorted(live_processes(uid_base, slots))


def sandbox_range_lease(
    *, holder: str, in_use: Callable[[int, int], list[int]] = uids_in_use
) -> RangeLease | None:
    """The first range of this host that is free and that no process runs under (``in_use``),
    or whose holder's lease lapsed, now leased by ``holder``; None if every range is taken.

    A lease taken from a lapsed holder says so (``taken_from``): the caller must end what
    that holder left under the uids before any bot runs there (``arena.sandbox.leftovers``).
    """
    host = host_identity()
    now = timezone.now()
    SandboxRange.objects.exclude(host=host).filter(expires_at__lt=now - FORGOTTEN_AFTER).delete()
    for index in range(settings.BAIZE_SANDBOX_RANGES):
        lease = _range_take(host=host, index=index, holder=holder, in_use=in_use)
        if lease is not None:
            return lease
    return None


def _range_take(
    *, host: str, index: int, holder: str, in_use: Callable[[int, int], list[int]]
) -> RangeLease | None:
    uid_base, slots = range_base(index), settings.BAIZE_SANDBOX_SLOTS
    row, _ = SandboxRange.objects.get_or_create(
        host=host, index=index, defaults={"uid_base": uid_base, "slots": slots}
    )
    now = timezone.now()
    if row.holder and row.expires_at > now:
        return None
    if not row.holder and (pids := in_use(uid_base, slots)):
        logger.warning(
            "sandbox range %s of host %s (uids %s-%s) is free, but processes no worker of this"
            " deployment leased run under its uids (pids %s): another Baize on this host uses"
            " them (give it BAIZE_SANDBOX_RANGES_BASE of its own); left alone",
            index, host, uid_base, uid_base + slots - 1, " ".join(map(str, pids[:10])),
        )  # fmt: skip
        return None
    # Conditional: two workers starting at once read the same free or lapsed row, and the
    # holder may renew meanwhile; only an update that finds the row as read takes it.
    taken = SandboxRange.objects.filter(
        pk=row.pk, holder=row.holder, expires_at=row.expires_at
    ).update(
        holder=holder,
        uid_base=uid_base,
        slots=slots,
        leased_at=now,
        expires_at=now + timedelta(seconds=settings.BAIZE_SANDBOX_LEASE_SECONDS),
    )
    if taken != 1:
        return None
    lapsed_at = row.expires_at if row.holder else None
    return RangeLease(host, index, uid_base, slots, holder, row.holder, lapsed_at)


def sandbox_range_renew(*, lease: RangeLease) -> bool:
    """Extend the lease by its term; False if the range is no longer the holder's (its
    renewals failed for a whole term, and another worker took it)."""
    expires_at = timezone.now() + timedelta(seconds=settings.BAIZE_SANDBOX_LEASE_SECONDS)
    renewed = SandboxRange.objects.filter(
        host=lease.host, index=lease.index, holder=lease.holder
    ).update(expires_at=expires_at)
    return renewed == 1


def sandbox_range_release(*, lease: RangeLease, clear: Callable[[int, int], object]) -> bool:
    """Free the range once ``clear(uid_base, slots)`` has ended what still runs under its
    uids; False, touching nothing, if the range is no longer the holder's."""
    held = SandboxRange.objects.filter(host=lease.host, index=lease.index, holder=lease.holder)
    if not held.exists():
        return False
    clear(lease.uid_base, lease.slots)
    return held.update(holder="", expires_at=timezone.now()) == 1
