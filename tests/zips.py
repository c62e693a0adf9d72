"""Zip archives built in memory for tests (bundles, zipped runs)."""

from __future__ import annotations

import io
import zipfile


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A zip holding ``files`` (archive name -> content)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()
