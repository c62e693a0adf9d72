"""Small builders shared by the sentence_alignment tests."""

from __future__ import annotations

import io
import zipfile

from tasks.sentence_alignment.formats import Alignment, Bisegment, Document


def make_zip(files: dict[str, bytes | str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            archive.writestr(name, data)
    return buffer.getvalue()


def doc(name: str = "d", n: int = 4, m: int = 4) -> Document:
    return Document(
        name,
        tuple(f"Source sentence number {i} ." for i in range(n)),
        tuple(f"Phrase cible {j} !" for j in range(m)),
    )


def alignment(text: str, document: Document) -> Alignment:
    """Bisegments written inline in the native format, e.g. ``"[0]:[0]\\n[1]:[1, 2]"``."""
    from tasks.sentence_alignment.formats import parse_alignments

    return parse_alignments(text.encode("utf-8"), "inline", [document]).alignments[0]


def segs(*pairs: tuple[tuple[int, ...], tuple[int, ...]]) -> Alignment:
    return Alignment.of(
        "d", tuple(Bisegment(tuple(sorted(a)), tuple(sorted(b))) for a, b in pairs)
    )
