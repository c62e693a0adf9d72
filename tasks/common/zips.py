"""Zip limits, in one place: every zip a user uploads (run files, task bundles,
sentence-alignment documents) is opened through :func:`open_zip` and its members read
through :func:`inflate`.

A small archive may inflate to gigabytes (a zip bomb) and its headers may lie, so:

- the central directory is checked first, without inflating anything: member count,
  safe member names (no ``..``, absolute paths, drive letters, NUL), no links or
  encryption, each declared size under ``max_member_bytes``, their sum under
  ``max_total_bytes`` and, when ``max_ratio`` is set, at most ``max_ratio`` times the
  archive's own size (archives that inflate to less than ``ratio_floor`` bytes are
  exempt: small text files may compress very well and cost nothing);
- members are then inflated in chunks and the bytes actually produced are counted
  against the limit, abandoning the read as soon as it is passed (a forged header
  cannot make us inflate more than the limit plus one chunk).

Problems raise :class:`ZipProblem` with a message fit to show to the uploader. Plain
Python: the platform (``evalhub/competitions/archives.py``) sets the limits from its
settings, task types turn the problem into a ``FormatError`` naming the file.
"""

from __future__ import annotations

import io
import stat
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # zipfile is imported when a zip is opened (the command line
    import zipfile  # reads plain files far more often, and starts faster without it)

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_CHUNK = 1 << 16


class ZipProblem(ValueError):
    """The zip is unreadable, unsafe or over a limit; the text says which."""


@dataclass(frozen=True, slots=True)
class ZipLimits:
    """What a zip may hold (see the module docstring for each check)."""

    max_members: int = 10_000
    max_member_bytes: int = 64 * 1024 * 1024
    max_total_bytes: int = 256 * 1024 * 1024
    max_ratio: int | None = None  #: inflated / compressed size; None: not checked
    ratio_floor: int = 0


@dataclass(frozen=True, slots=True)
class OpenedZip:
    """A zip whose central directory passed the checks, not yet inflated."""

    archive: zipfile.ZipFile
    members: tuple[zipfile.ZipInfo, ...]  # files only (no folders)
    declared_bytes: int  # what the members say they inflate to, in all


def is_zip(data: bytes) -> bool:
    return data[:4] in ZIP_MAGIC


def check_name(name: str) -> list[str]:
    """The path parts of a member name; ZipProblem for a name that could escape the
    folder it is put in."""
    parts = name.rstrip("/").split("/")
    if (
        "\\" in name
        or name.startswith("/")
        or "\x00" in name
        or any(part in ("", ".", "..") for part in parts)
        or ":" in parts[0]
    ):
        raise ZipProblem(f"unsafe member name {name!r} in the zip")
    return parts


def open_zip(data: bytes, limits: ZipLimits) -> OpenedZip:
    """Open an uploaded zip and check its directory against the limits, inflating
    nothing."""
    import zipfile

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
        raise ZipProblem(f"is not a readable zip archive ({exc})") from None
    if len(infos) > limits.max_members:
        raise ZipProblem(
            f"the zip has {len(infos):,} members (limit {limits.max_members:,})"
        )
    members = []
    total = 0
    for info in infos:
        check_name(info.filename)
        if info.is_dir():
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            raise ZipProblem(f"{info.filename}: symbolic links are not accepted")
        if info.flag_bits & 0x1:
            raise ZipProblem(f"{info.filename}: encrypted members are not accepted")
        if info.file_size > limits.max_member_bytes:
            raise ZipProblem(
                f"{info.filename} inflates to {info.file_size:,} bytes "
                f"(limit {limits.max_member_bytes:,} a file)"
            )
        total += info.file_size
        members.append(info)
    if total > limits.max_total_bytes:
        raise ZipProblem(
            f"the zip inflates to {total:,} bytes (limit {limits.max_total_bytes:,})"
        )
    if limits.max_ratio is not None and total > max(
        limits.ratio_floor, limits.max_ratio * len(data)
    ):
        raise ZipProblem(
            f"the zip inflates to {total:,} bytes, {total // max(len(data), 1):,} "
            f"times its own size (limit {limits.max_ratio}×): refused as a "
            "possible zip bomb; upload the files uncompressed or compressed less"
        )
    return OpenedZip(archive=archive, members=tuple(members), declared_bytes=total)


def inflate(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, *, truncate: bool
) -> bytes:
    """A member's bytes, inflated in chunks and counted while reading. Past ``limit``
    bytes: the first ``limit`` bytes if ``truncate``, else a ZipProblem, whatever the
    headers said."""
    import zipfile

    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as stream:
            while True:
                chunk = stream.read(min(_CHUNK, limit + 1 - size))
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    if truncate:
                        chunks.append(chunk[: len(chunk) - (size - limit)])
                        break
                    raise ZipProblem(f"{info.filename}: inflates past {limit:,} bytes")
                chunks.append(chunk)
    except ZipProblem:
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
        raise ZipProblem(f"{info.filename}: cannot be read ({exc})") from None
    return b"".join(chunks)
