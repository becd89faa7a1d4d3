"""Uploading a version: the upload read and checked, its code stored, the version created.

An upload is checked in memory (``arena.bot_code``) before anything is written; only a good one
is stored (content-addressed, in the store every worker reads: ``bots.services.code_cache``)
and becomes a ``pending`` version, whose check (``bots.services.check``) is queued once the
transaction commits.
"""

from __future__ import annotations

import enum
import io
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings
from django.db import IntegrityError, transaction

from arena.bot_code import BotCode, UploadLimits, UploadRejected, read_upload
from arena.runtimes import DEFAULT_RUNTIME, RUNTIMES, Runtime, runtime_named, runtime_of_files
from base.queues import FIRST_PRIORITY, SANDBOXED_QUEUE

from ..models import Bot, BotVersion
from .code_cache import code_cache_put, code_publish


def upload_limits(runtime: Runtime | None = None) -> UploadLimits:
    """The runtime's own limits where it has them (executables and jars weigh more), else
    the server's (``BAIZE_UPLOAD_*``)."""
    if runtime is not None and runtime.upload_limits is not None:
        return runtime.upload_limits
    return UploadLimits(
        max_bytes=settings.BAIZE_UPLOAD_MAX_BYTES,
        max_unpacked_bytes=settings.BAIZE_UPLOAD_MAX_UNPACKED_BYTES,
        max_files=settings.BAIZE_UPLOAD_MAX_FILES,
    )


def upload_runtime(name: str) -> Runtime:
    """The row ``name`` of the runtimes table; ``UploadRejected`` naming the rows there are."""
    try:
        return runtime_named(name)
    except KeyError as error:
        # No field: its detail is a message naming the rows, as every upload refusal's is.
        raise UploadRejected("unknown_runtime", error.args[0]) from None


class RuntimeFrom(enum.StrEnum):
    """Where an upload's runtime came from."""

    #: The upload named it.
    GIVEN = "given"
    #: The bot's latest version's runtime, which takes these files.
    LAST_VERSION = "last_version"
    #: The runtimes table's guess from the files' names (``runtime_of_files``).
    FILES = "files"


@dataclass(frozen=True)
class RuntimeChoice:
    runtime: Runtime
    source: RuntimeFrom

    @property
    def words(self) -> str:
        """The runtime and, unless the upload named it, why: ``cpp, guessed from the files``."""
        why = {
            RuntimeFrom.GIVEN: "",
            RuntimeFrom.LAST_VERSION: ", the bot's last version's",
            RuntimeFrom.FILES: ", guessed from the files",
        }[self.source]
        return f"{self.runtime.name}{why}"


def upload_runtime_choose(
    *, bot: Bot, filename: str, data: bytes, asked: str | None = None
) -> RuntimeChoice:
    """The runtime an upload of ``bot`` is for: the one ``asked`` for (``UploadRejected`` if
    the table has no such row); else the bot's latest version's, if it takes these files (a
    PyPy bot's next ``bot.py`` stays PyPy); else the table's own guess from the files."""
    if asked:
        return RuntimeChoice(upload_runtime(asked), RuntimeFrom.GIVEN)
    names = upload_root_names(filename, data)
    alone = PurePosixPath(filename.lower()).suffix != ".zip"
    last = (
        bot.versions.filter(builtin="").order_by("-number").values_list("runtime", flat=True)
    ).first()
    row = RUNTIMES.get(last or "")
    if row is not None and (
        row.takes_alone(filename) if alone else row.required_missing(names) is None
    ):
        return RuntimeChoice(row, RuntimeFrom.LAST_VERSION)
    return RuntimeChoice(runtime_of_files(names), RuntimeFrom.FILES)


def upload_root_names(filename: str, data: bytes) -> list[str]:
    """The names of an upload's files at its root, as far as its name and a zip's directory
    tell (nothing is unpacked): a single file's own name; the files of a zip nearest its
    root, so that a zipped folder is guessed by what it holds. A zip that cannot be read
    names nothing (reading the upload then says why)."""
    if PurePosixPath(filename.lower()).suffix != ".zip":
        return [PurePosixPath(filename).name]
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            paths = [info.filename for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError):
        return []
    parts = [PurePosixPath(path).parts for path in paths if path]
    depth = min((len(p) for p in parts), default=0)
    return [p[-1] for p in parts if len(p) == depth]


def bot_version_upload(
    *, bot: Bot, filename: str, data: bytes, runtime: str = DEFAULT_RUNTIME
) -> BotVersion:
    """Check, store and record a new version of ``bot`` written for ``runtime``;
    ``UploadRejected`` changes nothing."""
    row = upload_runtime(runtime)
    code = read_upload(filename, data, upload_limits(row), row)
    _refuse_duplicate(bot, code, row)
    try:
        with transaction.atomic():
            # Row lock: two uploads at once must not both take the next number.
            Bot.objects.select_for_update().get(id=bot.id)
            code_publish(code)
            latest = bot.versions.order_by("-number").values_list("number", flat=True).first()
            version = BotVersion.objects.create(
                bot=bot,
                number=(latest or 0) + 1,
                content_hash=code.content_hash,
                size=code.size,
                runtime=row.name,
            )
            transaction.on_commit(lambda: _enqueue_check(version.id))
    except IntegrityError:
        # The same code uploaded twice at once: the unique constraint let one through.
        _refuse_duplicate(bot, code, row)
        raise
    code_cache_put(code)
    return version


def _refuse_duplicate(bot: Bot, code: BotCode, runtime: Runtime) -> None:
    number = (
        bot.versions.filter(content_hash=code.content_hash, runtime=runtime.name, builtin="")
        .values_list("number", flat=True)
        .first()
    )
    if number is not None:
        raise UploadRejected(
            "duplicate_version",
            f"this code is already version {number} of {bot}"
            + ("" if runtime.name == DEFAULT_RUNTIME else f" for the {runtime.name} runtime"),
            status=409,
        )


def _enqueue_check(version_id: int) -> None:
    from ..tasks import bot_version_check_task  # tasks import this module

    bot_version_check_task.apply_async(
        (version_id,), queue=SANDBOXED_QUEUE, priority=FIRST_PRIORITY
    )
