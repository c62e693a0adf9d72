"""Zip limits for the platform: every zip a user uploads (run files, task bundles) is
opened through :func:`open_zip` and its members read through :func:`read_member`.

The checks themselves live in ``tasks/common/zips.py`` (plain Python, shared with the
task types that read zips of their own); this module sets the limits from settings
(``EVALHUB_ZIP_*``, see ``.env.example``). Problems raise :class:`ArchiveError` with a
message fit to show to the uploader.
"""

from __future__ import annotations

import zipfile

from django.conf import settings

from tasks.common import zips
from tasks.common.zips import ZIP_MAGIC, OpenedZip, ZipLimits, check_name, is_zip

ArchiveError = zips.ZipProblem

__all__ = [
    "ZIP_MAGIC",
    "ArchiveError",
    "OpenedZip",
    "ZipLimits",
    "check_name",
    "is_zip",
    "limits_from_settings",
    "open_zip",
    "read_head",
    "read_member",
]


def limits_from_settings() -> ZipLimits:
    return ZipLimits(
        max_members=settings.ZIP_MAX_MEMBERS,
        max_member_bytes=settings.ZIP_MAX_MEMBER_BYTES,
        max_total_bytes=settings.ZIP_MAX_TOTAL_BYTES,
        max_ratio=settings.ZIP_MAX_RATIO,
        ratio_floor=settings.ZIP_RATIO_FLOOR,
    )


def open_zip(data: bytes, limits: ZipLimits | None = None) -> OpenedZip:
    """Open an uploaded zip and check its directory against the limits, inflating
    nothing."""
    return zips.open_zip(data, limits or limits_from_settings())


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
    return zips.inflate(opened.archive, info, limit, truncate=False)


def read_head(opened: OpenedZip, info: zipfile.ZipInfo, size: int) -> bytes:
    """At most the first ``size`` inflated bytes of a member (cheap checks)."""
    return zips.inflate(opened.archive, info, size, truncate=True)
