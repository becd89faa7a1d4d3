"""``manage.py code_store_import --from FOLDER``: put the uploaded code found in a local
folder (a store of ``<sha256>/`` folders, as ``BAIZE_BOT_CODE_DIR`` was before code was
shared through the database) into the shared store, for every uploaded version whose code
is there (once per hash). Idempotent; the migration does this for ``BAIZE_BOT_CODE_DIR`` itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.models import BotVersion
from bots.services.code_cache import code_store_import


class Command(BaseCommand):
    help = "Import uploaded code from a local folder of <sha256>/ folders into the shared store."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from",
            dest="folder",
            type=Path,
            default=None,
            help="the folder to import from (default: BAIZE_BOT_CODE_DIR)",
        )

    def handle(self, *args: Any, folder: Path | None, **options: Any) -> None:
        folder = folder or Path(settings.BAIZE_BOT_CODE_DIR)
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
        hashes = set(BotVersion.objects.filter(builtin="").values_list("content_hash", flat=True))
        imported, missing = code_store_import(folder, hashes)
        self.stdout.write(f"imported {len(imported)} of {len(hashes)} uploaded versions' code")
        for content_hash in missing:
            self.stdout.write(f"not in {folder}: {content_hash}")
