"""Uploading a version: the upload read and checked, its code stored, the version created.

An upload is checked in memory (``arena.bot_code``) before anything is written; only a good one
is stored (content-addressed, in the store every worker reads: ``bots.services.code_cache``)
and becomes a ``pending`` version, whose check (``bots.services.check``) is queued once the
transaction commits.
"""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction

from arena.bot_code import BotCode, UploadLimits, UploadRejected, read_upload
from arena.runtimes import DEFAULT_RUNTIME, Runtime, runtime_named
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
