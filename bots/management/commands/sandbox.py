"""``manage.py sandbox``: probe this machine's sandbox and print its level and layers.

It probes on the uid range the sandbox of this host's worker uses: the fixed one of
``BAIZE_SANDBOX_UID_BASE``, else the range the worker running here leased (the newest, where
several run), else the one of processes that lease none. It names which, last. Exits with
status 1 when the level is below the one uploaded bots need.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bots.services.launch import current_sandbox
from bots.services.uid_ranges import range_hold, worker_ranges_here


class Command(BaseCommand):
    help = "Probe the sandbox of uploaded bots and report its level."

    def handle(self, *args: Any, **options: Any) -> None:
        origin = uid_range_take()
        report = current_sandbox().report
        self.stdout.write(report.describe())
        self.stdout.write(f"uid range: {origin}")
        if not report.safe:
            raise CommandError("uploaded bots cannot run on this machine")


def uid_range_take() -> str:
    """Probe on the range this host's worker uses; where it comes from."""
    if settings.BAIZE_SANDBOX_UID_BASE is not None:
        return "fixed by BAIZE_SANDBOX_UID_BASE"
    workers = worker_ranges_here()
    if not workers:
        return (
            "no worker here holds a range: the one of processes that lease none"
            f" ({settings.BAIZE_SANDBOX_UNLEASED_UID_BASE})"
        )
    lease, *others = workers
    # Probed as one more process of that worker: its slots are taken through the same locks.
    range_hold(lease)
    said = f"the worker's here, range {lease.index} of host {lease.host}, leased by {lease.holder}"
    if others:
        said += "; other workers here hold " + ", ".join(
            f"{other.uids} ({other.holder})" for other in others
        )
    return said
