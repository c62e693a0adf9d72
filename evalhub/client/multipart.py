"""The multipart/form-data parts the API client streams (a file's head, a text field),
with the names quoted so that no header can be broken by a file name."""

from __future__ import annotations

import mimetypes
from pathlib import Path


def file_head(boundary: str, name: str, path: Path) -> bytes:
    content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="{quote_name(name)}"; '
        f'filename="{quote_name(path.name)}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode()


def field(boundary: str, name: str, value: str) -> bytes:
    return (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="{name}"\r\n\r\n'
        f"{value}\r\n"
    ).encode()


def quote_name(name: str) -> str:
    return name.replace("\\", "_").replace('"', "_").replace("\r", "").replace("\n", "")
