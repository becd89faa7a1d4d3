"""Reading an upload's file out of a request, for every interface that takes one (the API's
upload and the authors' page): kept in memory, never on disk, and refused as soon as it is
larger than the largest any runtime takes (the upload's own runtime then checks its own
limit, in ``bots.services.upload``).
"""

from __future__ import annotations

import io

from django.core.files.uploadedfile import InMemoryUploadedFile, UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest

from arena.bot_code import UploadRejected
from arena.runtimes import RUNTIMES

from .services.upload import upload_limits

#: Room for the multipart envelope around the file itself.
MULTIPART_SLACK = 64 * 1024


class CappedMemoryUpload(FileUploadHandler):
    """Keeps an uploaded file in memory, never on disk, and stops reading past the limit."""

    def __init__(self, request=None, *, limit: int) -> None:
        super().__init__(request)
        self.limit = limit
        self.exceeded = False

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.chunks: list[bytes] = []
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        self.received += len(raw_data)
        if self.received > self.limit:
            self.exceeded = True
            raise StopUpload(connection_reset=False)
        self.chunks.append(raw_data)

    def file_complete(self, file_size: int) -> InMemoryUploadedFile:
        content = io.BytesIO(b"".join(self.chunks))
        return InMemoryUploadedFile(
            content,
            self.field_name,
            self.file_name,
            self.content_type,
            file_size,
            self.charset,
            self.content_type_extra,
        )


def upload_size_limit() -> int:
    """The most bytes any runtime's upload may weigh."""
    return max(upload_limits(runtime).max_bytes for runtime in RUNTIMES.values())


def _too_large(limit: int) -> UploadRejected:
    return UploadRejected("too_large", f"the upload is larger than {limit} bytes", status=413)


def upload_capped(request: HttpRequest) -> CappedMemoryUpload:
    """Read ``request``'s files through a capped handler; ``UploadRejected`` at once when
    the request says it is too large. Call it before anything reads the body."""
    limit = upload_size_limit()
    declared = int(request.META.get("CONTENT_LENGTH") or 0)
    if declared > limit + MULTIPART_SLACK:
        raise _too_large(limit)
    handler = CappedMemoryUpload(request, limit=limit)
    request.upload_handlers = [handler]
    return handler


def upload_file(upload: UploadedFile | None, handler: CappedMemoryUpload) -> UploadedFile:
    """The ``file`` part read through ``handler``; ``UploadRejected`` if it was too large
    or is missing."""
    if handler.exceeded:
        raise _too_large(handler.limit)
    if upload is None:
        raise UploadRejected(
            "no_file", "attach the bot as a multipart file field named 'file'", field="file"
        )
    return upload
