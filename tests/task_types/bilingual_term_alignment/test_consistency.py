"""Fast paths agree with the straightforward definitions."""

from __future__ import annotations

import gc

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tasks import registry
from tasks.base import RunDetail
from tasks.bilingual_term_alignment import formats, metrics, runs
from tasks.bilingual_term_alignment.formats import Pair
from tasks.common.gcpause import gc_paused
from tests.paths import shared_data
from tests.task_types.bilingual_term_alignment.coded import compute

TT = registry.get("bilingual_term_alignment")

pairs_strategy = st.lists(
    st.tuples(st.sampled_from("abcd"), st.sampled_from("wxyz")),
    max_size=30,
    unique=True,
)


def naive_ap(rel: list[bool], m: int) -> float:
    total, hits = 0.0, 0
    for k, r in enumerate(rel, start=1):
        if r:
            hits += 1
            total += hits / k
    return total / m if m else 0.0


def map_in_sorted_order(run: list[Pair], gold: frozenset[Pair]) -> float:
    """MAP over source terms straight from the definition, the per-source APs added
    in sorted term order (so the bits compute() must give)."""
    sources = sorted({s for s, _ in gold})
    total = 0.0
    for source in sources:
        ranked = [pair for pair in run if pair[0] == source]
        m = sum(1 for s, _ in gold if s == source)
        total += naive_ap([pair in gold for pair in ranked], 1) / m
    return total / len(sources) if sources else 0.0


@settings(max_examples=100, deadline=None)
@given(run=pairs_strategy, gold=pairs_strategy)
def test_vectorised_map_and_ap_match_definitions(run, gold):
    gold_set = frozenset(gold)
    scores, rel = compute(run, gold_set)
    assert scores.map_source == pytest.approx(
        metrics.map_over_sources(run, gold_set), abs=1e-12
    )
    assert scores.ap == pytest.approx(naive_ap(rel, len(gold_set)), abs=1e-12)
    assert scores.ap_interpolated >= scores.ap - 1e-12


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(
        st.tuples(
            st.sampled_from(["a", " a", "b ", "é", "e\u0301", "", "\u2003c"]),
            st.sampled_from(["\t", "\t\t", "", " \t "]),
            st.sampled_from(["x", "y ", "", "Z"]),
        ),
        max_size=8,
    ),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    bom=st.booleans(),
)
def test_fast_and_slow_line_splitting_agree(lines, crlf, final_newline, bom):
    end = "\r\n" if crlf else "\n"
    body = end.join(a + sep + b for a, sep, b in lines)
    data = (("\ufeff" if bom else "") + body + (end if final_newline else "")).encode()
    text = formats._decode_text(data, "f")
    rows = [line.split("\t") for line in text.split("\n")] if text else []
    try:
        slow = formats._split_pairs_slowly(rows, "f").pairs
    except formats.FormatError as exc:
        with pytest.raises(formats.FormatError) as fast_exc:
            formats.split_pairs(data, "f")
        assert [p.line for p in fast_exc.value.problems] == [
            p.line for p in exc.problems
        ]
        return
    assert formats.split_pairs(data, "f").pairs == slow


TERMS = formats.Inputs(
    source_terms=frozenset({"a", "é", "c d", "Ω"}),
    target_terms=frozenset({"x", "Z", "y", "é"}),
)
FIELDS = [b"a", b" a", b"a ", "é".encode(), "e\u0301".encode(), b"c d", b"c  d",
          "\u2003c d".encode(), "\xa0Ω".encode(), b"x", b"Z", b"z", b"y\r", b"q"]  # fmt: skip
BAD_FIELDS = [b"", b" ", b"\xff", b"\x00", b"a\tb"]
GOOD_LINE = st.tuples(st.sampled_from(FIELDS), st.sampled_from(FIELDS))
ANY_LINE = st.tuples(
    st.sampled_from(FIELDS + BAD_FIELDS), st.sampled_from(FIELDS + BAD_FIELDS)
)


def read_as_text(data: bytes) -> formats.Run:
    """runs.parse_run's text way alone."""
    return runs._read_text(data, "f", TERMS.vocabulary)


def reference_reading(data: bytes) -> tuple:
    """The run rules straight from the package docstring, pair by pair: repeats go
    (the first occurrence stays), then pairs outside D1 x D2; warnings quote the
    first five lines of each."""
    parsed = formats.split_pairs(data, "f")
    seen: set[Pair] = set()
    unique: list[tuple[int, Pair]] = []
    repeats: list[int] = []
    for i, pair in enumerate(parsed.pairs):
        if pair in seen:
            repeats.append(parsed.line(i))
        else:
            seen.add(pair)
            unique.append((parsed.line(i), pair))
    d1, d2 = TERMS.source_terms, TERMS.target_terms
    kept = [pair for _, pair in unique if pair[0] in d1 and pair[1] in d2]
    outside = [n for n, pair in unique if pair[0] not in d1 or pair[1] not in d2]

    def note(lines: list[int]) -> str:
        more = " ..." if len(lines) > 5 else ""
        return "line(s) " + ", ".join(map(str, lines[:5])) + more

    warnings = []
    if repeats:
        warnings.append(
            f"{len(repeats)} repeated pair(s) removed, only the first occurrence "
            f"counts ({note(repeats)})"
        )
    if outside:
        warnings.append(
            f"{len(outside)} pair(s) outside the source x target term lists removed "
            f"({note(outside)})"
        )
    n = len(parsed.pairs)
    return tuple(kept), n, len(repeats), len(outside), tuple(warnings)


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            GOOD_LINE,
            GOOD_LINE,
            GOOD_LINE,
            ANY_LINE,
            st.sampled_from([(b"",), (b"a", b"x", b"y"), (b" ",)]),
        ),
        max_size=10,
    ),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    bom=st.booleans(),
)
@example(lines=[(b"a", b"x"), (b" ",)], crlf=False, final_newline=False, bom=False)
@example(lines=[(b"q", b"x"), (b"a", b"x"), (b"q ", b"x")], crlf=False, final_newline=True, bom=False)  # fmt: skip
@example(lines=[(b"a", b"x"), (b" a", b"x"), (b"q", b"x")], crlf=True, final_newline=True, bom=True)  # fmt: skip
def test_bytes_and_text_ways_read_a_run_alike(lines, crlf, final_newline, bom):
    """Whenever the bytes way reads a file, the text way gives the same run: the same
    codes, rows, counts and warnings (and the bytes way leaves every file the text
    way rejects to it)."""
    end = b"\r\n" if crlf else b"\n"
    body = end.join(b"\t".join(fields) for fields in lines)
    data = (b"\xef\xbb\xbf" if bom else b"") + body + (end if final_newline else b"")
    default_share = runs.ODD_SHARE
    runs.ODD_SHARE = 1  # the bytes way reads files of any share of odd fields
    try:
        fast = runs._read_bytes(data, TERMS.vocabulary)
    finally:
        runs.ODD_SHARE = default_share
    try:
        slow = read_as_text(data)
    except formats.FormatError:
        assert fast is None
        return
    assert reference_reading(data) == (
        slow.pairs,
        slow.n_lines,
        slow.n_duplicates,
        slow.n_oov,
        slow.warnings,
    )
    assert runs.parse_run(data, "f", TERMS, formats.Settings()) == slow
    if fast is not None:
        assert (list(fast.codes), list(fast.rows)) == (
            list(slow.codes),
            list(slow.rows),
        )
        assert (fast.n_lines, fast.n_duplicates, fast.n_oov, fast.warnings) == (
            slow.n_lines,
            slow.n_duplicates,
            slow.n_oov,
            slow.warnings,
        )
        assert fast.pairs == slow.pairs
        # split a few lines at a time, the bytes way reads the same run
        default = runs.CHUNK
        try:
            runs.ODD_SHARE = 1
            for chunk in (1, 6, 13):
                runs.CHUNK = chunk
                assert runs._read_bytes(data, TERMS.vocabulary) == fast
        finally:
            runs.CHUNK, runs.ODD_SHARE = default, default_share
        # with the default share, the bytes way reads the file or leaves it
        assert runs._read_bytes(data, TERMS.vocabulary) in (fast, None)


def test_gc_paused_restores_state():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_difficulty_bins_on_real_runs():
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    s = TT.parse_settings({})
    inputs = TT.parse_inputs(
        {
            "source_terms": (base / "source_terms.txt").read_bytes(),
            "target_terms": (base / "target_terms.txt").read_bytes(),
        },
        s,
    )
    gold = TT.parse_gold({"gold": (base / "gold.tsv").read_bytes()}, inputs, s)
    details = []
    for name in ("cognates", "combined", "long_tail", "muse_lookup"):
        run = TT.parse_run(
            (base / "runs" / f"{name}.tsv").read_bytes(), name, inputs, s
        )
        report = TT.score(run, gold, inputs, s)
        details.append(RunDetail(name, report.detail, report.curves, report.metrics))
    result = TT.analyse(details, gold, s)
    assert result is not None
    sizes = [b["size"] for b in result.public["bins"]]
    assert len(sizes) == 5 and sum(sizes) == 2884
    # muse_lookup finds nothing, so nothing can be found by all four runs
    assert sizes[4] == 0
    # long_tail alone finds 612 gold pairs, so at least that many leave bin_0
    assert 2884 - sizes[0] >= 612
    assert sum(b["percent"] for b in result.public["bins"]) == pytest.approx(100.0)
    members = result.private["bins"]
    assert sum(len(b["members"]) for b in members) == 2884
    # Per run, the pairs it retrieved across the bins are its true positives.
    for r, run in enumerate(details):
        found = sum(b["found"][r] for b in result.public["bins"])
        assert found == run.metrics["tp"]
    assert [b["found"][3] for b in result.public["bins"]] == [0] * 5  # muse_lookup


@settings(max_examples=200, deadline=None)
@given(run=pairs_strategy, gold=pairs_strategy)
def test_compute_gives_the_bits_of_the_rank_functions(run, gold):
    """compute() reads only the hit ranks; every measure must be bit-identical to
    the straightforward functions over the whole rel vector."""
    from tasks.common import ranking

    gold_set = frozenset(gold)
    scores, rel = compute(run, gold_set)
    m = len(gold_set)
    assert rel == [pair in gold_set for pair in run]
    assert scores.ap == ranking.average_precision(rel, m)
    assert scores.ap_interpolated == ranking.interpolated_average_precision(rel, m)
    assert scores.p_at_100 == ranking.precision_at_k(rel, 100)
    assert scores.p_at_1000 == ranking.precision_at_k(rel, 1000)
    assert scores.r_precision == ranking.r_precision(rel, m)
    assert scores.map_source == map_in_sorted_order(run, gold_set)
    assert scores.tp == sum(rel)
