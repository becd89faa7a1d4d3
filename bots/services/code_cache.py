"""Uploaded code on every worker: a shared store by content hash, and each process's local cache.

An upload's files are kept once per content hash where every Baize process can read them: a
table of the database (``CodeBlob``) by default, or a storage of Django's ``STORAGES`` named by
``BAIZE_CODE_STORAGE`` (object storage, say). Nothing else is shared between hosts: a worker
that is to run a version unpacks it from there into its local cache,
``BAIZE_BOT_CODE_DIR/<sha256>/``, on first use. The stored zip is read with the same checks
as an upload, its content hash is recomputed and must match the one asked for, and the folder
appears in one rename (``arena.bot_code.store_code``), so no bot ever sees half or foreign code.

The cache is bounded by ``BAIZE_CODE_CACHE_MB``: past it, the folders least recently used are
removed, but never one used in the last ``CACHE_KEEP_SECONDS`` (a match may still read it).
A version whose code cannot be had raises ``CodeUnavailable``; the tasks retry it later.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import time
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages
from django.db import DatabaseError, models

from arena.bot_code import (
    BotCode,
    UploadLimits,
    UploadRejected,
    code_dir,
    read_code_folder,
    read_zip,
    store_code,
    zip_code,
)
from arena.sandbox.reach import forget_code_copy

from ..models import CodeBlob
from .uid_ranges import sandbox_uid_base

logger = logging.getLogger(__name__)

#: A cached folder used this recently is never evicted: longer than any match lasts.
CACHE_KEEP_SECONDS = 6 * 3600


class CodeUnavailable(RuntimeError):
    """A version's code is in no store this process can read right now; try again later."""


def code_publish(code: BotCode, *, blob_model: type[models.Model] = CodeBlob) -> None:
    """Keep ``code`` in the shared store, once per hash.

    ``blob_model`` is ``CodeBlob``, or its historical model in a migration.
    """
    blob = zip_code(code)
    storage = _shared_storage()
    if storage is None:
        # Inside the upload's transaction: a version is never committed without its code.
        blob_model.objects.bulk_create(
            [blob_model(content_hash=code.content_hash, data=blob)], ignore_conflicts=True
        )
    else:
        _storage_put(storage, code.content_hash, blob)


def code_cache_put(code: BotCode) -> Path:
    """Keep ``code`` in this process's cache too (the host that took an upload checks it)."""
    return store_code(code, settings.BAIZE_BOT_CODE_DIR)


def cached_code_dir(content_hash: str) -> Path:
    """The local folder of the code with ``content_hash``, fetched and checked on first use."""
    folder = code_dir(settings.BAIZE_BOT_CODE_DIR, content_hash)
    if folder.is_dir():
        _mark_used(folder)
        return folder
    code = _fetch(content_hash)
    folder = store_code(code, settings.BAIZE_BOT_CODE_DIR)
    _mark_used(folder)
    cache_evict(keep=folder)
    return folder


def _fetch(content_hash: str) -> BotCode:
    storage = _shared_storage()
    where = f"storage {settings.BAIZE_CODE_STORAGE!r}" if storage else "the database"
    try:
        blob = _storage_get(storage, content_hash) if storage else _database_get(content_hash)
    except (DatabaseError, OSError) as error:
        raise CodeUnavailable(f"code {content_hash} cannot be read from {where}: {error}") from None
    if blob is None:
        raise CodeUnavailable(f"code {content_hash} is not in {where}")
    try:
        code = read_zip(blob, _stored_limits(blob))
    except UploadRejected as error:
        raise CodeUnavailable(f"code {content_hash} in {where} is damaged: {error}") from None
    if code.content_hash != content_hash:
        raise CodeUnavailable(
            f"code {content_hash} in {where} holds other code ({code.content_hash}); not used"
        )
    logger.info("fetched code %s from %s into the local cache", content_hash, where)
    return code


def _stored_limits(blob: bytes) -> UploadLimits:
    # The code was checked against the limits of its upload; today's may be lower.
    return UploadLimits(max_bytes=len(blob), max_unpacked_bytes=1 << 30, max_files=1 << 20)


def _database_get(content_hash: str) -> bytes | None:
    data = CodeBlob.objects.filter(content_hash=content_hash).values_list("data", flat=True).first()
    return None if data is None else bytes(data)


#: The alias in ``STORAGES`` that settings give the storage ``BAIZE_CODE_STORAGE`` names.
STORAGE_ALIAS = "bot_code"


def _shared_storage() -> Storage | None:
    return storages[STORAGE_ALIAS] if settings.BAIZE_CODE_STORAGE else None


def _storage_name(content_hash: str) -> str:
    return f"bot-code/{content_hash}.zip"


def _storage_put(storage: Storage, content_hash: str, blob: bytes) -> None:
    name = _storage_name(content_hash)
    if storage.exists(name):
        return
    saved = storage.save(name, ContentFile(blob))
    if saved != name:  # another upload of the same code won the race: keep one copy
        storage.delete(saved)


def _storage_get(storage: Storage, content_hash: str) -> bytes | None:
    name = _storage_name(content_hash)
    if not storage.exists(name):
        return None
    with storage.open(name, "rb") as stored:
        return stored.read()


def _mark_used(folder: Path) -> None:
    # Evicted meanwhile by another process: the caller's next use fetches it again.
    with contextlib.suppress(OSError):
        os.utime(folder)


def cache_evict(*, keep: Path | None = None) -> list[Path]:
    """Remove the least recently used cached folders until the cache fits its bound."""
    store = Path(settings.BAIZE_BOT_CODE_DIR)
    bound = settings.BAIZE_CODE_CACHE_MB << 20
    folders = [(path.stat().st_mtime, _size(path), path) for path in _cached_folders(store)]
    total = sum(size for _, size, _ in folders)
    removed = []
    old = time.time() - CACHE_KEEP_SECONDS
    for used, size, path in sorted(folders):
        if total <= bound:
            break
        if path == keep or used > old:
            continue
        _remove(path)
        total -= size
        removed.append(path)
    return removed


def _cached_folders(store: Path) -> list[Path]:
    if not store.is_dir():
        return []
    return [
        path
        for path in store.iterdir()
        if len(path.name) == 64 and path.is_dir() and not path.name.startswith(".")
    ]


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def _remove(folder: Path) -> None:
    # Renamed first: no reader ever finds a half-removed folder under its hash.
    doomed = folder.with_name(f".evicted-{folder.name}-{os.getpid()}")
    try:
        folder.rename(doomed)
    except OSError:
        return
    shutil.rmtree(doomed, ignore_errors=True)
    forget_code_copy(folder, sandbox_uid_base())


def code_store_import(
    folder: Path, content_hashes: set[str], *, blob_model: type[models.Model] = CodeBlob
) -> tuple[list[str], list[str]]:
    """Put the code of ``content_hashes`` found under ``folder`` (a local store of uploads)
    into the shared store: the hashes imported and those missing or not matching."""
    imported, missing = [], []
    for content_hash in sorted(content_hashes):
        try:
            source = code_dir(folder, content_hash)
        except ValueError:  # not a hash: such a version has no code anywhere
            missing.append(content_hash)
            continue
        code = read_code_folder(source) if source.is_dir() else BotCode({})
        if code.content_hash != content_hash:
            missing.append(content_hash)
            continue
        code_publish(code, blob_model=blob_model)
        imported.append(content_hash)
    return imported, missing
