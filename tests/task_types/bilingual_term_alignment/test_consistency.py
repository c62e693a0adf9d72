"""Fast paths agree with the straightforward definitions."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks import registry
from tasks.base import RunDetail
from tasks.bilingual_term_alignment import formats, metrics
from tasks.common.gcpause import gc_paused
from tests.paths import shared_data

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


@settings(max_examples=100, deadline=None)
@given(run=pairs_strategy, gold=pairs_strategy)
def test_vectorised_map_and_ap_match_definitions(run, gold):
    gold_set = frozenset(gold)
    scores, rel, index = metrics.compute(run, gold_set)
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
            formats._split_pairs(data, "f")
        assert [p.line for p in fast_exc.value.problems] == [
            p.line for p in exc.problems
        ]
        return
    assert formats._split_pairs(data, "f").pairs == slow


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
    scores, rel, index = metrics.compute(run, gold_set)
    m = len(gold_set)
    assert rel == metrics.relevance(run, gold_set)
    assert scores.ap == ranking.average_precision(rel, m)
    assert scores.ap_interpolated == ranking.interpolated_average_precision(rel, m)
    assert scores.p_at_100 == ranking.precision_at_k(rel, 100)
    assert scores.p_at_1000 == ranking.precision_at_k(rel, 1000)
    assert scores.r_precision == ranking.r_precision(rel, m)
    assert scores.map_source == metrics.map_from_index(rel, index)
    assert scores.tp == sum(rel)
