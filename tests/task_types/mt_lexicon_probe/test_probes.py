from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasks.base import FormatError
from tasks.mt_lexicon_probe.probes import (
    FreqClass,
    Pos,
    Probe,
    ProbeSet,
    parse_judgements,
    parse_probes,
    parse_references,
    parse_run,
    probes_to_tsv,
    references_to_tsv,
)
from tasks.mt_lexicon_probe.tags import Tag

PROBES = (
    "adj-high-001\tnew\tadj\thigh\tThis is new.\tneu\n"
    "noun-low-001\twaterbird\tnoun\tlow\tThe waterbird can be nice.\tWasservogel|Wasser-Vogel\n"
    "verb-medium-001\tknit\tverb\tmedium\tWe knit.\n"
)


def _probes() -> ProbeSet:
    return parse_probes(PROBES.encode(), "probes.tsv")


def test_parse_probes_with_and_without_references():
    probes = _probes()
    assert [p.id for p in probes.probes] == [
        "adj-high-001",
        "noun-low-001",
        "verb-medium-001",
    ]
    assert probes.probes[1].references == ("Wasservogel", "Wasser-Vogel")
    assert (
        probes.probes[1].pos is Pos.NOUN
        and probes.probes[1].freq_class is FreqClass.LOW
    )
    assert probes.probes[2].references == ()
    public = probes.without_references()
    assert not public.has_references


def test_header_bom_crlf_and_blank_lines():
    data = (
        b"\xef\xbb\xbfid\tword\tpos\tfreq_class\tsentence\r\n\r\n"
        + PROBES.replace("\n", "\r\n").encode()
    )
    assert parse_probes(data, "p.tsv") == _probes()


def test_round_trip():
    probes = _probes()
    again = parse_probes(probes_to_tsv(probes.probes).encode(), "p.tsv")
    assert again == probes
    public = parse_probes(
        probes_to_tsv(probes.probes, references=False).encode(), "p.tsv"
    )
    refs = parse_references(references_to_tsv(probes.probes).encode(), "r.tsv", public)
    assert public.with_references(refs) == probes


word = st.text(st.characters(categories=["L"]), min_size=1, max_size=12)


@given(
    st.lists(
        st.tuples(
            word,
            st.sampled_from(list(Pos)),
            st.sampled_from(list(FreqClass)),
            st.lists(word, max_size=3, unique=True),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_round_trip_property(rows):
    import unicodedata

    probes = tuple(
        Probe(
            f"p{i}",
            unicodedata.normalize("NFC", w),
            pos,
            fc,
            f"x {unicodedata.normalize('NFC', w)}.",
            tuple(dict.fromkeys(unicodedata.normalize("NFC", r) for r in refs)),
        )
        for i, (w, pos, fc, refs) in enumerate(rows)
    )
    assert parse_probes(probes_to_tsv(probes).encode(), "p.tsv").probes == probes


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("a\tnew\tadj\thigh\n", 1, "5 or 6 tab-separated columns"),
        ("a\tnew\tadverb\thigh\tThis is new.\n", 1, "pos 'adverb'"),
        ("a\tnew\tadj\trare\tThis is new.\n", 1, "freq_class 'rare'"),
        (
            "a\tnew\tadj\thigh\tThis is new.\na\tgood\tadj\thigh\tThis is good.\n",
            2,
            "already used on line 1",
        ),
        ("a b\tnew\tadj\thigh\tThis is new.\n", 1, "bad id"),
        ("a\t\tadj\thigh\tThis is new.\n", 1, "must not be empty"),
    ],
)
def test_bad_probe_files(text, line, fragment):
    with pytest.raises(FormatError) as exc:
        parse_probes(text.encode(), "probes.tsv")
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == ("probes.tsv", line)
    assert fragment in problem.message


def test_public_probes_must_not_carry_references():
    with pytest.raises(FormatError, match="must not contain reference"):
        parse_probes(PROBES.encode(), "probes", allow_references=False)


def test_empty_and_binary_probe_files():
    with pytest.raises(FormatError, match="no probes"):
        parse_probes(b"\n\n", "p.tsv")
    with pytest.raises(FormatError, match="NUL byte"):
        parse_probes(b"a\x00b", "p.tsv")


def test_run_line_count_errors_name_counts_and_line():
    probes = _probes()
    with pytest.raises(FormatError) as exc:
        parse_run(b"Dies ist neu.\nDer Wasservogel.\n", "run.txt", probes)
    problem = exc.value.problems[0]
    assert problem.line == 3
    assert "2 line(s) but the probe set has 3 probes" in problem.message
    assert "verb-medium-001" in problem.message
    with pytest.raises(FormatError) as exc:
        parse_run(b"a\nb\nc\nd\n", "run.txt", probes)
    assert exc.value.problems[0].line == 4
    assert "4 lines but the probe set has 3" in exc.value.problems[0].message


def test_run_empty_translations_and_trailing_blank_lines():
    run = parse_run(b"Dies ist neu.\n\r\nWir stricken.\n\n\n", "run.txt", _probes())
    assert run.translations == ("Dies ist neu.", "", "Wir stricken.")
    assert any("blank line" in w for w in run.warnings)
    assert any("1 empty translation" in w for w in run.warnings)


def test_run_of_empty_lines_is_refused_nothing_to_score():
    """Issue 15: 1,000,000 empty lines were accepted and scored as undefined shares."""
    for data in (b"\n" * 3, b"\n" * 1_000_000, b" \n\t\n\n\n"):
        with pytest.raises(FormatError) as exc:
            parse_run(data, "run.txt", _probes())
        (problem,) = exc.value.problems
        assert (problem.line, problem.file) == (1, "run.txt")
        assert "no translation" in problem.message


def test_references_may_have_empty_lines_and_ids_without_refs():
    refs = parse_references(
        b"adj-high-001\tneu|frisch\n\nverb-medium-001\n", "r.tsv", _probes()
    )
    assert refs == {"adj-high-001": ("neu", "frisch"), "verb-medium-001": ()}
    with pytest.raises(FormatError, match="unknown probe id 'zzz'"):
        parse_references(b"zzz\tx\n", "r.tsv", _probes())


def test_judgements():
    probes = _probes()
    got = parse_judgements(
        b"id\ttag\nadj-high-001\tc\nnoun-low-001\tWD\nadj-high-001\tc\n",
        "j.tsv",
        probes,
    )
    assert got == {"adj-high-001": Tag.CORRECT, "noun-low-001": Tag.WRONG_DETERMINER}
    with pytest.raises(FormatError) as exc:
        parse_judgements(
            b"adj-high-001\tok\nnope\tc\nadj-high-001\tc\nadj-high-001\tw\n",
            "j.tsv",
            probes,
        )
    messages = [(p.line, p.message) for p in exc.value.problems]
    assert messages[0][0] == 1 and "unknown tag 'ok'" in messages[0][1]
    assert messages[1][0] == 2 and "unknown probe id 'nope'" in messages[1][1]
    assert messages[2][0] == 4 and "tagged c on line 3 and w here" in messages[2][1]
