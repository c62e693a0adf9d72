from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.base import FormatError
from tasks.sentence_alignment.formats import (
    parse_alignments,
    parse_documents,
    parse_sentences,
)

from .helpers import doc, make_zip


def _one(text: str, n: int = 5, m: int = 5):  # type: ignore[no-untyped-def]
    return parse_alignments(
        text.encode("utf-8"), "run.align", [doc("d", n, m)]
    ).alignments[0]


def _error(text: str, n: int = 5, m: int = 5) -> FormatError:
    with pytest.raises(FormatError) as info:
        _one(text, n, m)
    return info.value


def test_bisegment_forms() -> None:
    a = _one("[0]:[0, 1]\n[]:[2]\n[1]:[]\n[3,2]:[3]:0.125\n  [4] : [4]  \n\n")
    assert [(b.source, b.target, b.line) for b in a.bisegments] == [
        ((0,), (0, 1), 1),
        ((), (2,), 2),
        ((1,), (), 3),
        ((2, 3), (3,), 4),
        ((4,), (4,), 5),
    ]


def test_real_gold_quirks_are_accepted() -> None:
    # non-contiguous, crossing, a sentence in two bisegments, sentences in none
    a = _one("[0, 2]:[1]\n[1]:[0, 3]\n[3]:[2]\n[3]:[4]\n")
    assert len(a.bisegments) == 4


def test_duplicates_count_once() -> None:
    a = _one("[0]:[0]\n[0]:[0]\n[1]:[1]\n")
    assert len(a.bisegments) == 2
    assert a.duplicates == 1


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("[0]:[0]\n0:1\n", 2, "expected a bisegment"),
        ("[0]:[0]\n[0]:[x]\n", 2, "bad target sentence number"),
        ("[-1]:[0]\n", 1, "negative source sentence number -1"),
        ("[0]:[5]\n", 1, "target sentence 5 is out of range"),
        ("[7]:[0]\n", 1, "source sentence 7 is out of range"),
        ("[]:[]\n", 1, "both sides of the bisegment are empty"),
        ("[1, 1]:[0]\n", 1, "listed twice"),
        ("[0]:[0\n", 1, "expected a bisegment"),
        ("[0, ]:[0]\n", 1, "bad source sentence number"),
    ],
)
def test_malformed_lines(text: str, line: int, fragment: str) -> None:
    error = _error(text)
    assert error.problems[0].line == line
    assert fragment in error.problems[0].message
    assert error.problems[0].file == "run.align"


def test_many_problems_are_collected() -> None:
    error = _error("x\n" * 30)
    assert error.total == 30
    assert len(error.problems) == FormatError.MAX_PROBLEMS


def test_multi_document_text_run() -> None:
    docs = [doc("a", 2, 2), doc("b", 3, 3)]
    text = "# a\n[0]:[0]\n[1]:[1]\n\n# b\n[0, 1]:[0]\n[2]:[1, 2]\n"
    result = parse_alignments(text.encode(), "run.txt", docs)
    assert [a.document for a in result.alignments] == ["a", "b"]
    assert result.get("b").bisegments[1].line == 7


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("# a\n[0]:[0]\n", "no alignment for document 'b'"),
        ("# a\n[0]:[0]\n# b\n[0]:[0]\n# c\n[0]:[0]\n", "unknown document 'c'"),
        ("[0]:[0]\n# a\n[0]:[0]\n# b\n[0]:[0]\n", "before the first"),
        ("# a\n[0]:[0]\n# a\n[1]:[1]\n# b\n[0]:[0]\n", "appears twice"),
        (
            "# a\n[0]:[0]\n# b\n[2]:[0]\n",
            "document 'b': source sentence 2 is out of range",
        ),
        ("# a b\n", "header line"),
    ],
)
def test_multi_document_text_errors(text: str, fragment: str) -> None:
    docs = [doc("a", 2, 2), doc("b", 2, 2)]
    with pytest.raises(FormatError) as info:
        parse_alignments(text.encode(), "run.txt", docs)
    assert any(fragment in p.message for p in info.value.problems), info.value


def test_zip_run_and_its_errors() -> None:
    docs = [doc("a", 2, 2), doc("b", 2, 2)]
    good = make_zip({"a.align": "[0]:[0]\n", "b.align": "[1]:[1]\n"})
    assert len(parse_alignments(good, "run.zip", docs).alignments) == 2
    folder = make_zip({"run/a.align": "[0]:[0]\n", "run/b.align": "[1]:[1]\n"})
    assert len(parse_alignments(folder, "run.zip", docs).alignments) == 2
    cases = {
        "unknown document 'c'": {"a.align": "", "b.align": "", "c.align": ""},
        "no alignment for document 'b'": {"a.align": "[0]:[0]\n"},
        "unexpected file": {"a.align": "", "b.txt": ""},
        "out of range": {"a.align": "[0]:[0]\n", "b.align": "[0]:[9]\n"},
    }
    for fragment, files in cases.items():
        with pytest.raises(FormatError) as info:
            parse_alignments(make_zip(files), "run.zip", docs)
        assert fragment in str(info.value)
    with pytest.raises(FormatError) as info:
        parse_alignments(
            make_zip({"a.align": "", "b.align": "[0]:[9]\n"}), "run.zip", docs
        )
    assert info.value.problems[0].file == "run.zip:b.align"
    assert info.value.problems[0].line == 1


def test_sentences_keep_empty_lines_and_strip_trailing_space() -> None:
    data = "\ufeffErste Zeile \r\n\nDritte\u0301 \n".encode()
    assert parse_sentences(data, "s") == ("Erste Zeile", "", "Dritt\u00e9")  # NFC
    with pytest.raises(FormatError) as info:
        parse_sentences(b"ok\n\xff\n", "s")
    assert info.value.problems[0].line == 2


def test_documents_zip() -> None:
    docs = parse_documents(
        make_zip({"b.src": "x\n", "b.tgt": "y\nz\n", "a.src": "", "a.tgt": ""}),
        "in.zip",
    )
    assert [(d.name, len(d.source), len(d.target)) for d in docs] == [
        ("a", 0, 0),
        ("b", 1, 2),
    ]
    with pytest.raises(FormatError, match=r"has no c\.tgt"):
        parse_documents(make_zip({"c.src": "x\n"}), "in.zip")
    with pytest.raises(FormatError, match="expected a zip"):
        parse_documents(b"plain text", "in.zip")
    with pytest.raises(FormatError, match="not a usable document name"):
        parse_documents(make_zip({"-x.src": "", "-x.tgt": ""}), "in.zip")


# ---- the plain fast path against the line parser ---------------------------------


def test_plain_fast_path_reads_a_plain_file_as_columns() -> None:
    from tasks.sentence_alignment import formats

    document = formats.Document("d", ("a", "b", "c", "d"), ("w", "x", "y", "z"))
    fast = formats._parse_plain_text("[0]:[1]\n[2, 1]:[3]\n[]:[0]", None, document)
    assert fast is not None
    assert (fast.sources, fast.targets, fast.lines) == (
        ((0,), (1, 2), ()),
        ((1,), (3,), (0,)),
        (1, 2, 3),
    )


SIDES = ["", "0", "1", "2", "3", "0, 1", "1, 0", "1, 1", "2, 3", "1, 2, 3", "9"]


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.tuples(st.sampled_from(SIDES), st.sampled_from(SIDES)).map(
                lambda sides: f"[{sides[0]}]:[{sides[1]}]"
            ),
            st.sampled_from(["", "[0]:[1]:0.5", "[0] : [1]", "[a]:[0]"]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_plain_fast_path_reads_files_as_the_line_parser_does(lines):
    """Whenever the fast path reads a file, the line parser gives the same
    alignment; the fast path leaves every file with a problem to it."""
    from tasks import base
    from tasks.common.textio import read_lines
    from tasks.sentence_alignment import formats

    document = formats.Document("d", ("a", "b", "c", "d"), ("w", "x", "y", "z"))
    text = "\n".join(lines)
    fast = formats._parse_plain_text(text, None, document)
    problems = base.ProblemCollector()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(formats, "_parse_plain", lambda lines, document: None)
        slow = formats.parse_bisegments(
            read_lines(text.encode(), "f"), "f", document, problems, named=False
        )
    if fast is not None:
        assert not problems.problems
        assert fast == slow
