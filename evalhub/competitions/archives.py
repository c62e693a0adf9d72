"""Zip limits, in one place: every zip a user uploads (run files, task bundles) is
opened through :func:`open_zip` and its members read through :func:`read_member`.

A small archive may inflate to gigabytes (a zip bomb) and its headers may lie, so:

- the central directory is checked first, without inflating anything: member count,
  safe member names (no ``..``, absolute paths, drive letters, NUL), no links or
  encryption, each declared size under ``max_member_bytes``, their sum under
  ``max_total_bytes``, and the sum at most ``max_ratio`` times the archive's own size
  (archives that inflate to less than ``ratio_floor`` bytes are exempt: small text
  files may compress very well and cost nothing);
- members are then inflated in chunks and the bytes actually produced are counted
  against the same limits, abandoning the read as soon as one is passed (a forged
  header cannot make us inflate more than the limit plus one chunk).

Limits come from settings (``EVALHUB_ZIP_*``, see ``.env.example``); problems raise
:class:`ArchiveError` with a message fit to show to the uploader.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from dataclasses import dataclass

from django.conf import settings

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_CHUNK = 1 << 16


class ArchiveError(ValueError):
    """The zip is unreadable, unsafe or over a limit; the text says which."""


@dataclass(frozen=True, slots=True)
class ZipLimits:
    max_members: int
    max_member_bytes: int
    max_total_bytes: int
    max_ratio: int
    ratio_floor: int

    @classmethod
    def from_settings(cls) -> ZipLimits:
        return cls(
            max_members=settings.ZIP_MAX_MEMBERS,
            max_member_bytes=settings.ZIP_MAX_MEMBER_BYTES,
            max_total_bytes=settings.ZIP_MAX_TOTAL_BYTES,
            max_ratio=settings.ZIP_MAX_RATIO,
            ratio_floor=settings.ZIP_RATIO_FLOOR,
        )


@dataclass(frozen=True, slots=True)
class OpenedZip:
    archive: zipfile.ZipFile
    members: tuple[zipfile.ZipInfo, ...]  # files only (no folders)
    declared_bytes: int  # what the members say they inflate to, in all


def is_zip(data: bytes) -> bool:
    return data[:4] in ZIP_MAGIC


def check_name(name: str) -> None:
    """ArchiveError for a member name that could escape the folder it is put in."""
    parts = name.rstrip("/").split("/")
    if (
        "\\" in name
        or name.startswith("/")
        or "\x00" in name
        or any(part in ("", ".", "..") for part in parts)
        or ":" in parts[0]
    ):
        raise ArchiveError(f"unsafe member name {name!r} in the zip")


def open_zip(data: bytes, limits: ZipLimits | None = None) -> OpenedZip:
    """Open an uploaded zip and check its directory against the limits, inflating
    nothing."""
    limits = limits or ZipLimits.from_settings()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        ValueError,
        EOFError,
        NotImplementedError,
    ) as exc:
        raise ArchiveError(f"is not a readable zip archive ({exc})") from None
    if len(infos) > limits.max_members:
        raise ArchiveError(
            f"the zip has {len(infos):,} members (limit {limits.max_members:,})"
        )
    members = []
    total = 0
    for info in infos:
        check_name(info.filename)
        if info.is_dir():
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            raise ArchiveError(f"{info.filename}: symbolic links are not accepted")
        if info.flag_bits & 0x1:
            raise ArchiveError(f"{info.filename}: encrypted members are not accepted")
        if info.file_size > limits.max_member_bytes:
            raise ArchiveError(
                f"{info.filename} inflates to {info.file_size:,} bytes "
                f"(limit {limits.max_member_bytes:,} a file)"
            )
        total += info.file_size
        members.append(info)
    if total > limits.max_total_bytes:
        raise ArchiveError(
            f"the zip inflates to {total:,} bytes (limit {limits.max_total_bytes:,})"
        )
    if total > max(limits.ratio_floor, limits.max_ratio * len(data)):
        raise ArchiveError(
            f"the zip inflates to {total:,} bytes, {total // max(len(data), 1):,} "
            f"times its own size (limit {limits.max_ratio}×): refused as a "
            "possible zip bomb; upload the files uncompressed or compressed less"
        )
    return OpenedZip(archive=archive, members=tuple(members), declared_bytes=total)


def read_member(
    opened: OpenedZip, info: zipfile.ZipInfo, *, max_bytes: int | None = None
) -> bytes:
    """A member's bytes, inflated in chunks and counted while reading: past
    ``max_bytes`` (default: the member limit) or past its declared size it is an
    ArchiveError, whatever the headers said."""
    limit = min(
        max_bytes if max_bytes is not None else settings.ZIP_MAX_MEMBER_BYTES,
        info.file_size,
    )
    return _inflate(opened.archive, info, limit, truncate=False)


def read_head(opened: OpenedZip, info: zipfile.ZipInfo, size: int) -> bytes:
    """At most the first ``size`` inflated bytes of a member (cheap checks)."""
    return _inflate(opened.archive, info, size, truncate=True)


def _inflate(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, *, truncate: bool
) -> bytes:
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
                    raise ArchiveError(
                        f"{info.filename}: inflates past {limit:,} bytes"
                    )
                chunks.append(chunk)
    except ArchiveError:
        raise
    except (
        zipfile.BadZipFile,
        NotImplementedError,
        RuntimeError,
        EOFError,
        OSError,
        ValueError,
        zlib.error,
    ) as exc:
        raise ArchiveError(f"{info.filename}: cannot be read ({exc})") from None
    return b"".join(chunks)
