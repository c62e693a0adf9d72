from __future__ import annotations

import doctest
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.sentence_alignment import metrics
from tasks.sentence_alignment.formats import Alignment, Bisegment, Document
from tasks.sentence_alignment.metrics import (
    LEVELS,
    char_count,
    micro,
    prf,
    score_document,
    word_count,
)

from .helpers import alignment, doc


def test_docstring_examples() -> None:
    result = doctest.testmod(metrics)
    assert result.attempted >= 3
    assert result.failed == 0


def test_seed_worked_example() -> None:
    """Seed 003, section 4.2: A_r = {[0]:[0], [1]:[1, 2]}, A = {[0]:[0], [1]:[2], []:[1]}."""
    d = doc(n=2, m=3)
    gold = alignment("[0]:[0]\n[1]:[1, 2]\n", d)
    run = alignment("[0]:[0]\n[1]:[2]\n[]:[1]\n", d)
    counts = score_document(d, gold, run).counts
    p, r, f = counts.get("alignment").scores
    assert (p, r) == pytest.approx((1 / 3, 0.5))
    assert f == pytest.approx(0.4)
    p, r, f = counts.get("sentence").scores
    assert (p, r) == pytest.approx((1.0, 2 / 3))
    assert f == pytest.approx(0.8)


def test_word_and_char_levels_weigh_pairs_by_units() -> None:
    d = Document("d", ("a b c", "d ."), ("x", "y z", "w"))
    # words: source 3, 2; target 1, 2, 1. chars: source 3, 2; target 1, 2, 1.
    gold = alignment("[0]:[0]\n[1]:[1, 2]\n", d)
    run = alignment("[0]:[0]\n[1]:[2]\n[]:[1]\n", d)
    counts = score_document(d, gold, run).counts
    word = counts.get("word")
    # A' ∩ A'_r = {(0,0), (1,2)}: 3·1 + 2·1 = 5; A'_r adds (1,1): 2·2 = 4 -> 9.
    assert (word.correct, word.proposed, word.reference) == (5, 5, 9)
    assert word.scores[1] == pytest.approx(5 / 9)
    assert counts.get("char") == counts.get("word")


def test_units() -> None:
    assert word_count("L'été, 2024 !") == 6  # L ' été , 2024 !
    assert word_count("") == 0
    assert char_count("a\tb\u3000c") == 3
    assert char_count("   ") == 0


def test_gold_against_itself_is_perfect() -> None:
    d = doc(n=6, m=6)
    gold = alignment("[0]:[0, 1]\n[1, 3]:[2]\n[]:[3]\n[2]:[]\n[4]:[4]\n[4]:[5]\n", d)
    counts = score_document(d, gold, gold).counts
    for level in LEVELS:
        assert counts.get(level).scores == (1.0, 1.0, 1.0), level


def test_empty_run_scores_zero_and_zero_over_zero_is_zero() -> None:
    d = doc(n=2, m=2)
    gold = alignment("[0]:[0]\n[1]:[1]\n", d)
    empty = Alignment("d")
    counts = score_document(d, gold, empty).counts
    for level in LEVELS:
        assert counts.get(level).scores == (0.0, 0.0, 0.0)
    both_empty = score_document(d, empty, empty).counts
    assert all(c.scores == (0.0, 0.0, 0.0) for c in both_empty.levels)
    assert prf(0, 0, 0, 0) == (0.0, 0.0, 0.0)


def test_strict_and_lax_follow_vecalign() -> None:
    d = doc(n=5, m=5)
    gold = alignment("[0]:[0]\n[1, 2]:[1]\n[]:[2]\n[3]:[3, 4]\n[4]:[]\n", d)
    run = alignment("[0]:[0]\n[1]:[1]\n[2]:[2]\n[]:[2]\n[3]:[3]\n[4]:[4]\n", d)
    counts = score_document(d, gold, run).counts
    strict, lax = counts.get("strict"), counts.get("lax")
    # precision: 6 run bisegments; strict hits [0]:[0] and []:[2]; lax adds [1]:[1],
    # [3]:[3]. recall: 3 gold bisegments with both sides; strict [0]:[0]; lax all three.
    assert (
        strict.correct,
        strict.proposed,
        strict.correct_reference,
        strict.reference,
    ) == (2, 6, 1, 3)
    assert (lax.correct, lax.proposed, lax.correct_reference, lax.reference) == (
        4,
        6,
        3,
        3,
    )


def test_micro_average_sums_counts() -> None:
    d1, d2 = doc("a", 2, 2), doc("b", 2, 2)
    c1 = score_document(
        d1, alignment("[0]:[0]\n[1]:[1]\n", d1), alignment("[0]:[0]\n", d1)
    ).counts
    c2 = score_document(
        d2, alignment("[0, 1]:[0, 1]\n", d2), alignment("[0, 1]:[0, 1]\n", d2)
    ).counts
    total = micro("all", [c1, c2])
    a = total.get("alignment")
    assert (a.correct, a.proposed, a.reference) == (2, 2, 3)
    s = total.get("sentence")
    assert (s.correct, s.proposed, s.reference) == (5, 5, 6)


def _naive(
    d: Document, gold: Alignment, run: Alignment
) -> dict[str, tuple[int, int, int]]:
    """Straight from the definitions: explicit sets, unit pairs enumerated."""

    def pairs(a: Alignment) -> set[tuple[int, int]]:
        return {(s, t) for b in a.bisegments for s in b.source for t in b.target}

    def unit_pairs(
        ps: set[tuple[int, int]], split: object
    ) -> set[tuple[int, int, int, int]]:
        out = set()
        for s, t in ps:
            us, ut = split(d.source[s]), split(d.target[t])  # type: ignore[operator]
            out |= {(s, i, t, j) for i in range(len(us)) for j in range(len(ut))}
        return out

    g = {b.key for b in gold.bisegments}
    r = {b.key for b in run.bisegments}
    gp, rp = pairs(gold), pairs(run)
    result = {
        "alignment": (len(g & r), len(r), len(g)),
        "sentence": (len(gp & rp), len(rp), len(gp)),
    }
    for level, split in (
        ("word", metrics.WORD.findall),
        ("char", lambda x: [c for c in x if not c.isspace()]),
    ):
        gu, ru = unit_pairs(gp, split), unit_pairs(rp, split)
        result[level] = (len(gu & ru), len(ru), len(gu))
    return result


def _naive_vecalign(
    gold: Alignment, run: Alignment
) -> dict[str, tuple[int, int, int, int]]:
    """vecalign's strict/lax written from its definition: precision over all run
    bisegments, recall over gold bisegments with both sides non-empty."""
    g = {b.key for b in gold.bisegments}
    r = {b.key for b in run.bisegments}
    gp = {(s, t) for a, b in g for s in a for t in b}
    rp = {(s, t) for a, b in r for s in a for t in b}
    g_full = {k for k in g if k[0] and k[1]}
    r_full = {k for k in r if k[0] and k[1]}

    def lax(
        key: tuple[tuple[int, ...], tuple[int, ...]], pairs: set[tuple[int, int]]
    ) -> bool:
        return any((s, t) in pairs for s in key[0] for t in key[1])

    return {
        "strict": (len(r & g), len(r), len(g_full & r_full), len(g_full)),
        "lax": (
            sum(1 for k in r if k in g or lax(k, gp)),
            len(r),
            sum(1 for k in g_full if k in r_full or lax(k, rp)),
            len(g_full),
        ),
    }


def _bisegments(n: int, m: int) -> st.SearchStrategy[tuple[Bisegment, ...]]:
    def side(k: int) -> st.SearchStrategy[tuple[int, ...]]:
        return st.sets(st.integers(0, k - 1), max_size=3).map(
            lambda s: tuple(sorted(s))
        )

    seg = st.tuples(side(n), side(m)).filter(lambda b: bool(b[0] or b[1]))
    return st.lists(seg, max_size=8, unique=True).map(
        lambda xs: tuple(Bisegment(a, b) for a, b in xs)
    )


@settings(max_examples=60, deadline=None)
@given(
    _bisegments(5, 4),
    _bisegments(5, 4),
    st.lists(
        st.sampled_from(["ab", "c,d", "é f g", "", "x.y z"]), min_size=9, max_size=9
    ),
)
def test_matches_naive_definition(gold_segs, run_segs, texts) -> None:  # type: ignore[no-untyped-def]
    d = Document("d", tuple(texts[:5]), tuple(texts[5:]))
    gold, run = Alignment.of("d", gold_segs), Alignment.of("d", run_segs)
    counts = score_document(d, gold, run).counts
    for level, (common, proposed, reference) in _naive(d, gold, run).items():
        c = counts.get(level)
        assert (c.correct, c.proposed, c.correct_reference, c.reference) == (
            common,
            proposed,
            common,
            reference,
        )
    for level, expected in _naive_vecalign(gold, run).items():
        c = counts.get(level)
        assert (c.correct, c.proposed, c.correct_reference, c.reference) == expected


def test_cross_product_expansion_order() -> None:
    d = doc(n=4, m=4)
    run = alignment("[0, 1]:[2, 3]\n[]:[0]\n[2, 3]:[0, 1]\n", d)
    pairs = [metrics._pairs_of((b.source, b.target), 4) for b in run.bisegments]
    expected = [
        s * 4 + t
        for b in run.bisegments
        for s, t in itertools.product(b.source, b.target)
    ]
    assert [k for ks in pairs for k in ks] == expected


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.characters(
                blacklist_categories=("Cs",), blacklist_characters="\n"
            )
        ),
        max_size=6,
    )
)
def test_vectorised_unit_counts_equal_the_regex(sentences: list[str]) -> None:
    expected = [word_count(s) for s in sentences], [char_count(s) for s in sentences]
    default = metrics.RARE
    try:  # other characters replaced by one pattern, then found by their lead bytes
        for rare in (default, 10**9, 0):
            metrics.RARE = rare
            assert metrics.unit_counts(sentences) == expected
    finally:
        metrics.RARE = default


def test_unit_counts_do_not_depend_on_the_blocks(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import random

    from tasks.sentence_alignment import metrics

    rng = random.Random(7)
    sentences = [
        "".join(rng.choice("ab c,.\u00e9 \t-") for _ in range(rng.randint(0, 40)))
        for _ in range(3000)
    ]
    whole = metrics.unit_counts(sentences)
    monkeypatch.setattr(metrics, "BLOCK_CHARS", 97)
    blocks = metrics.unit_counts(sentences)
    assert blocks == whole
    assert whole[0] == [metrics.word_count(s) for s in sentences]
    assert whole[1] == [metrics.char_count(s) for s in sentences]
