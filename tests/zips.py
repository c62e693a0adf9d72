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


def zip_bomb(
    names: tuple[str, ...] = ("minutes.align", "letters.align", "chapter1.align"),
    member_bytes: int = 63 * 1024 * 1024,
) -> bytes:
    """The issue-15 attack: a ~289 kB zip whose members each inflate to 63 MB of
    ``[0]:[0]`` lines (valid sentence-alignment beads, so only their number hurts)."""
    line = b"[0]:[0]\n"
    content = line * (member_bytes // len(line))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in names:
            archive.writestr(name, content)
    return buffer.getvalue()
