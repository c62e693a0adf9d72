"""Reading uploaded zips of documents or alignments defensively.

The limits (member count, safe names, links, encryption, declared and actual inflated
sizes) are checked by ``tasks/common/zips.py``, as for every zip a user uploads. This
module adds the layout a sentence-alignment zip must have and names the file in every
problem: :func:`read_zip` returns the members' bytes keyed by their base name, or raises
:class:`~tasks.base.FormatError`.
"""

from __future__ import annotations

from collections.abc import Collection

from tasks.base import FormatError
from tasks.common import zips
from tasks.common.zips import ZipLimits, is_zip

__all__ = ["ZipLimits", "is_zip", "read_zip"]

DEFAULT_LIMITS = ZipLimits()


def _ignored(name: str) -> bool:
    """Files that archivers add on their own (macOS resource forks, Finder state)."""
    base = name.rsplit("/", 1)[-1]
    return name.startswith("__MACOSX/") or base.startswith(".")


def read_zip(
    data: bytes,
    file: str,
    extensions: Collection[str],
    limits: ZipLimits = DEFAULT_LIMITS,
) -> dict[str, bytes]:
    """Members of a zip as ``{base name: bytes}``.

    Accepted layout: files at the top level, or all of them inside one and the same
    folder (what zipping a folder gives). Deeper nesting, two folders, unexpected
    extensions, duplicate names, links, encryption and oversize members are rejected.
    """
    try:
        opened = zips.open_zip(data, limits)
        wanted = _layout(opened, file, extensions)
        members: dict[str, bytes] = {}
        for info, base in wanted:
            if base in members:
                raise FormatError.at(file, None, f"{base} appears twice in the zip")
            limit = min(limits.max_member_bytes, info.file_size)
            members[base] = zips.inflate(opened.archive, info, limit, truncate=False)
    except zips.ZipProblem as exc:
        raise FormatError.at(file, None, str(exc)) from None
    return members


def _layout(opened: zips.OpenedZip, file: str, extensions: Collection[str]) -> list:
    wanted = []
    folders: set[str] = set()
    for info in opened.members:
        name = info.filename
        if _ignored(name):
            continue
        parts = name.split("/")
        if len(parts) > 2:
            raise FormatError.at(file, None, f"{name}: nested folders are not expected")
        if len(parts) == 2:
            folders.add(parts[0])
        base = parts[-1]
        if "." not in base or base.rsplit(".", 1)[1] not in extensions:
            allowed = ", ".join(f".{e}" for e in sorted(extensions))
            raise FormatError.at(
                file, None, f"{name}: unexpected file (expected {allowed})"
            )
        wanted.append((info, base))
    if len(folders) > 1 or (folders and any("/" not in i.filename for i, _ in wanted)):
        raise FormatError.at(
            file, None, "put the files at the top of the zip or all in one folder"
        )
    return wanted
