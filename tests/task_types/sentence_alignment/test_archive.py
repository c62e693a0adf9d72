from __future__ import annotations

import io
import zipfile

import pytest

from tasks.base import FormatError
from tasks.sentence_alignment.archive import ZipLimits, read_zip

from .helpers import make_zip


def test_reads_top_level_and_one_folder() -> None:
    assert read_zip(make_zip({"a.align": "x"}), "z", ("align",)) == {"a.align": b"x"}
    assert read_zip(make_zip({"f/a.align": "x", "f/": b""}), "z", ("align",)) == {
        "a.align": b"x"
    }
    skipped = make_zip(
        {"a.align": "x", "__MACOSX/._a.align": "junk", ".DS_Store": "junk"}
    )
    assert read_zip(skipped, "z", ("align",)) == {"a.align": b"x"}


@pytest.mark.parametrize(
    "name",
    [
        "../a.align",
        "/etc/a.align",
        "f/../../a.align",
        "C:/a.align",
        "a\\..\\b.align",
        "f//a.align",
    ],
)
def test_path_traversal_is_rejected(name: str) -> None:
    with pytest.raises(FormatError, match="unsafe member name"):
        read_zip(make_zip({name: "x"}), "z", ("align",))


def test_layout_problems() -> None:
    with pytest.raises(FormatError, match="nested folders"):
        read_zip(make_zip({"f/g/a.align": "x"}), "z", ("align",))
    with pytest.raises(FormatError, match="one folder"):
        read_zip(make_zip({"f/a.align": "x", "g/b.align": "y"}), "z", ("align",))
    with pytest.raises(FormatError, match="one folder"):
        read_zip(make_zip({"f/a.align": "x", "b.align": "y"}), "z", ("align",))


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_duplicate_member_names() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.align", "x")
        archive.writestr("a.align", "y")
    with pytest.raises(FormatError, match="appears twice"):
        read_zip(buffer.getvalue(), "z", ("align",))


def test_declared_size_limit() -> None:
    data = make_zip({"a.align": "x" * 5000})
    with pytest.raises(FormatError, match="limit 1,000"):
        read_zip(data, "z", ("align",), ZipLimits(max_member_bytes=1000))
    with pytest.raises(FormatError, match="inflates to 10,000 bytes"):
        read_zip(
            make_zip({"a.align": "x" * 5000, "b.align": "y" * 5000}),
            "z",
            ("align",),
            ZipLimits(max_total_bytes=9000),
        )
    with pytest.raises(FormatError, match="members"):
        read_zip(
            make_zip({f"{i}.align": "" for i in range(5)}),
            "z",
            ("align",),
            ZipLimits(max_members=4),
        )


def test_zip_bomb_with_forged_sizes_stops_reading() -> None:
    """A member that lies about its size is cut off once the real bytes pass the limit."""
    payload = b"\0" * 2_000_000
    data = bytearray(make_zip({"a.align": payload}))
    real = len(payload).to_bytes(4, "little")
    forged = (100).to_bytes(4, "little")
    # uncompressed size lives in the local header (offset 22) and central directory
    # (offset 24 of its entry); forge both.
    data[22:26] = forged
    central = data.rfind(b"PK\x01\x02")
    assert data[central + 24 : central + 28] == real
    data[central + 24 : central + 28] = forged
    with pytest.raises(FormatError, match="cannot be read|inflates past"):
        read_zip(bytes(data), "z", ("align",), ZipLimits(max_member_bytes=1000))


def test_symlinks_encryption_and_garbage() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("a.align")
        info.external_attr = 0o120777 << 16
        archive.writestr(info, "/etc/passwd")
    with pytest.raises(FormatError, match="symbolic links"):
        read_zip(buffer.getvalue(), "z", ("align",))
    data = bytearray(make_zip({"a.align": "x"}))
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 0x1  # general purpose flag: encrypted
    with pytest.raises(FormatError, match="encrypted"):
        read_zip(bytes(data), "z", ("align",))
    with pytest.raises(FormatError, match="not a readable zip"):
        read_zip(b"PK\x03\x04 garbage", "z", ("align",))


def test_reading_stops_past_the_limit() -> None:
    """The chunked reader gives up once actual bytes pass the limit, whatever was declared."""
    from tasks.common.zips import ZipProblem, inflate

    archive = zipfile.ZipFile(io.BytesIO(make_zip({"a.align": b"\0" * 300_000})))
    with pytest.raises(ZipProblem, match="inflates past 100,000 bytes"):
        inflate(archive, archive.infolist()[0], 100_000, truncate=False)
    head = inflate(archive, archive.infolist()[0], 1000, truncate=True)
    assert head == b"\0" * 1000
