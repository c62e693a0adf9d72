"""Reading uploaded zip archives defensively.

An upload is untrusted: member names may try to escape (``../x``, ``/etc/x``,
``C:\\x``), members may be symbolic links or encrypted, and a small archive may inflate
to gigabytes (a zip bomb). :func:`read_zip` returns the members' bytes keyed by their
base name, or raises :class:`~tasks.base.FormatError`. Sizes are checked twice: the
size each member *declares* in the central directory, and the bytes actually inflated,
which are read in chunks and abandoned as soon as a limit is passed (a forged header
cannot make us inflate more than ``max_member_bytes + one chunk``).
"""

from __future__ import annotations

import io
import stat
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tasks.base import FormatError

if TYPE_CHECKING:
    import zipfile

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class ZipLimits:
    max_members: int = 10_000
    max_member_bytes: int = 64 * 1024 * 1024
    max_total_bytes: int = 256 * 1024 * 1024


DEFAULT_LIMITS = ZipLimits()


def is_zip(data: bytes) -> bool:
    return data[:4] in ZIP_MAGIC


def _ignored(name: str) -> bool:
    """Files that archivers add on their own (macOS resource forks, Finder state)."""
    base = name.rsplit("/", 1)[-1]
    return name.startswith("__MACOSX/") or base.startswith(".")


def _check_name(name: str, file: str) -> list[str]:
    """Path parts of a safe member name; FormatError for anything that could escape."""
    if "\\" in name or name.startswith("/") or "\x00" in name:
        raise FormatError.at(file, None, f"unsafe member name {name!r} in the zip")
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts) or ":" in parts[0]:
        raise FormatError.at(file, None, f"unsafe member name {name!r} in the zip")
    return parts


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
    import zipfile  # here: a plain-text alignment file never needs it

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        ValueError,
        EOFError,
        NotImplementedError,  # e.g. "zip file version 6.4" in a corrupt header
    ) as exc:
        raise FormatError.at(
            file, None, f"is not a readable zip archive ({exc})"
        ) from None
    if len(infos) > limits.max_members:
        raise FormatError.at(
            file, None, f"zip has {len(infos):,} members (limit {limits.max_members:,})"
        )
    wanted: list[tuple[zipfile.ZipInfo, str]] = []
    folders: set[str] = set()
    declared_total = 0
    for info in infos:
        name = info.filename
        if info.is_dir():
            _check_name(name.rstrip("/"), file)
            continue
        parts = _check_name(name, file)
        if _ignored(name):
            continue
        if len(parts) > 2:
            raise FormatError.at(file, None, f"{name}: nested folders are not expected")
        if len(parts) == 2:
            folders.add(parts[0])
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise FormatError.at(file, None, f"{name}: symbolic links are not accepted")
        if info.flag_bits & 0x1:
            raise FormatError.at(
                file, None, f"{name}: encrypted members are not accepted"
            )
        base = parts[-1]
        if "." not in base or base.rsplit(".", 1)[1] not in extensions:
            allowed = ", ".join(f".{e}" for e in sorted(extensions))
            raise FormatError.at(
                file, None, f"{name}: unexpected file (expected {allowed})"
            )
        if info.file_size > limits.max_member_bytes:
            raise FormatError.at(
                file,
                None,
                f"{name}: {info.file_size:,} bytes (limit {limits.max_member_bytes:,})",
            )
        declared_total += info.file_size
        wanted.append((info, base))
    if len(folders) > 1 or (folders and any("/" not in i.filename for i, _ in wanted)):
        raise FormatError.at(
            file, None, "put the files at the top of the zip or all in one folder"
        )
    if declared_total > limits.max_total_bytes:
        raise FormatError.at(
            file,
            None,
            f"zip inflates to {declared_total:,} bytes (limit {limits.max_total_bytes:,})",
        )
    members: dict[str, bytes] = {}
    total = 0
    for info, base in wanted:
        if base in members:
            raise FormatError.at(file, None, f"{base} appears twice in the zip")
        content = _read_member(archive, info, file, limits.max_member_bytes)
        total += len(content)
        if total > limits.max_total_bytes:
            raise FormatError.at(
                file,
                None,
                f"zip inflates to more than {limits.max_total_bytes:,} bytes",
            )
        members[base] = content
    return members


def _read_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, file: str, limit: int
) -> bytes:
    import zipfile
    import zlib

    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as stream:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    raise FormatError.at(
                        file, None, f"{info.filename}: inflates past {limit:,} bytes"
                    )
                chunks.append(chunk)
    except FormatError:
        raise
    except (
        zipfile.BadZipFile,
        NotImplementedError,
        RuntimeError,
        EOFError,
        OSError,
        ValueError,  # a corrupt header offset: "negative seek value"
        zlib.error,  # corrupt deflate data
    ) as exc:
        raise FormatError.at(
            file, None, f"{info.filename}: cannot be read ({exc})"
        ) from None
    return b"".join(chunks)
