"""Upload size limit enforced while the request body streams in, never after reading
it whole.

- :class:`UploadSizeMiddleware` answers 413 at once when ``Content-Length`` says the
  body exceeds ``MAX_UPLOAD_BYTES`` (plus room for the form fields), before Django
  reads any of it.
- :class:`MaxSizeUploadHandler` (first in ``FILE_UPLOAD_HANDLERS``) counts each file's
  bytes as they arrive and stops the upload the moment one passes the limit; the
  middleware then turns the request into the same 413 answer.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest, HttpResponse

from evalhub.competitions.error_pages import error_page

#: Room for the other form fields and multipart headers around the file.
FORM_OVERHEAD = 256 * 1024
_FLAG = "_evalhub_upload_too_large"


def mib(size: int) -> str:
    """A size as the pages say it: ``50 MiB``, or ``64 KiB`` below one MiB."""
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KiB"
    return f"{size / 1024 / 1024:.0f} MiB"


def upload_note(task_type: object) -> str:
    """What the upload form says of a run's size and of compressed files, for a
    task of ``task_type`` (``TaskType.zip_runs``)."""
    limit = mib(settings.MAX_UPLOAD_BYTES)
    if getattr(task_type, "zip_runs", False):
        return (
            f"A run file is at most {limit} as uploaded. Compressed runs: this task "
            "accepts a .zip archive (what it holds is described above); no other "
            "compressed form (.gz, .bz2, .xz, .7z, .rar) is read."
        )
    return (
        f"A run file is at most {limit}. This task reads a run as plain text: "
        "compressed files (.zip, .gz, .bz2, .xz, .7z) are not accepted. A larger "
        "run: ask the organisers."
    )


def too_large_response(request: HttpRequest) -> HttpResponse:
    """The site's 413 page (plain text for the API's clients). The session is not
    read yet, so the page's header leaves the account's links out."""
    limit = settings.MAX_UPLOAD_BYTES
    response = error_page(
        request,
        413,
        text=f"The upload is larger than the limit of {limit:,} bytes "
        f"({mib(limit)}), so it was not taken. Where a task accepts zipped runs (its "
        "submission format says so), a .zip archive of the file is much smaller; "
        "otherwise ask the task's organisers.",
        account=False,
    )
    response["Connection"] = "close"
    return response


class MaxSizeUploadHandler(FileUploadHandler):
    def new_file(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > settings.MAX_UPLOAD_BYTES:
            if self.request is not None:
                setattr(self.request, _FLAG, True)
            raise StopUpload(connection_reset=True)
        return raw_data  # the next handler stores it

    def file_complete(self, file_size: int) -> None:
        return None  # a later handler builds the file


class UploadSizeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > settings.MAX_UPLOAD_BYTES + FORM_OVERHEAD:
            return too_large_response(request)
        response = self.get_response(request)
        if getattr(request, _FLAG, False):
            return too_large_response(request)
        return response
