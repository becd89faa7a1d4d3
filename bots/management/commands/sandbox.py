"""``manage.py sandbox``: probe this machine's sandbox and print its level and layers.

Exits with status 1 when the level is below the one uploaded bots need.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from bots.services.launch import current_sandbox


class Command(BaseCommand):
    help = "Probe the sandbox of uploaded bots and report its level."

    def handle(self, *args: Any, **options: Any) -> None:
        report = current_sandbox().report
        self.stdout.write(report.describe())
        if not report.safe:
            raise CommandError("uploaded bots cannot run on this machine")
