"""Decoding uploaded text files the same way for every task type.

Rules (documented in every task type's format help): a UTF-8 BOM is stripped, CRLF and
CR-less LF are both accepted, every line is Unicode NFC-normalised. A NUL byte means a
binary file; invalid UTF-8 is reported with the line it occurs on.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from tasks.errors import FormatError

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a decoded text file, with its number for error messages."""

    number: int  # 1-based
    text: str


def decode_text(data: bytes, file: str) -> str:
    """UTF-8 text without BOM; FormatError naming the line of the first bad byte."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise FormatError.at(
            file,
            line,
            "contains a NUL byte: this looks like a binary file, not UTF-8 text",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError.at(
            file,
            line,
            f"is not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
        ) from None


def read_lines(
    data: bytes, file: str, *, max_chars: int | None = None, keep_empty: bool = True
) -> list[Line]:
    """Split decoded text into NFC-normalised lines without their line ends.

    A final newline does not make an extra empty line. ``max_chars`` rejects longer
    lines (after normalisation) with a FormatError naming the first such line.
    """
    text = decode_text(data, file)
    raw = text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    lines: list[Line] = []
    for i, line in enumerate(raw, start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if not line.isascii():
            line = unicodedata.normalize("NFC", line)
        if max_chars is not None and len(line) > max_chars:
            raise FormatError.at(
                file, i, f"line is {len(line):,} characters long (limit {max_chars:,})"
            )
        if keep_empty or line.strip():
            lines.append(Line(i, line))
    return lines


def read_texts(data: bytes, file: str, *, max_chars: int | None = None) -> list[str]:
    """The texts of :func:`read_lines` (empty lines kept), without a ``Line`` per
    line: when the whole text is NFC already (splitting at newlines keeps it so: a
    newline never composes), it is split once at C speed; otherwise, and for
    errors, :func:`read_lines` does the work."""
    text = decode_text(data, file)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        return [line.text for line in read_lines(data, file, max_chars=max_chars)]
    raw = text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    if "\r" in text:
        raw = [line[:-1] if line.endswith("\r") else line for line in raw]
    if max_chars is not None and raw and max(map(len, raw)) > max_chars:
        read_lines(data, file, max_chars=max_chars)  # raises, naming the line
    return raw
