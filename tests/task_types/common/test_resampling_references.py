"""The intervals and p-values against independent references over the same units:
``scipy.stats.bootstrap`` (percentile) for the intervals and
``scipy.stats.permutation_test`` (paired: each unit's statistics swapped between the
two runs) for the randomisation p-values, with the same statistic (the task type's
formula on the resampled units' sums, its offset never resampled).

Monte Carlo error: our intervals use B = 1,000 resamples, scipy's 4,999; the
standard error of a 2.5 % percentile of B draws is about 2 % of the 95 % interval's
width for a near-normal statistic, so the ends must agree within 10 % of the width
(about 4.5 standard errors of the difference). Randomisation p-values with R = 1,000
trials against scipy's 4,999: within 4 standard errors of their difference,
``4 sqrt(p (1 - p) (1/1001 + 1/5000)) + 2/1001``. Our 1,000 trials dominate that
error: scipy's 9,999 would narrow the bound by at most 4.3 % (a difference of the
two p-values that large still passes with 4,999), for twice the CPU of the
reference, the most of this module's. Where every swap is enumerated (both sides
exact) the p-values are equal.

Real data (``../shared/data``): BUCC-style Wiktionary runs (unit: gold pair), ACTER
term extraction scored by TermoMeter (unit: gold term) and Text+Berg sentence
alignment (unit: document). The ACTER check is subsampled to keep its CPU to a few
seconds: every 8th line of the English heart-failure (htfl) gold list (296 gold
terms) against the full term lists of two template-ATE runs; the statistic is
the same (TermoMeter's TF on the gold terms' sums), only the test set is smaller.
Text+Berg: its 7 de-fr documents and 3 published aligners, in full; 2^7 swaps are
enumerated on both sides, so the p-values are equal, and the intervals (B = 1,000
against 4,999 resamples of 7 documents) are held to the same 10 % of the width."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from tasks import registry
from tasks.common import resampling as rs
from tests.paths import shared_data
from tests.task_types.common.demo_runs import demo_reports
from tests.zips import zip_bytes

SEED = 12345


def _metric_of(stats: rs.ItemStats):  # noqa: ANN202
    table, offset = stats.values, np.asarray(stats.offset)

    def metric(idx: np.ndarray, axis: int = -1) -> np.ndarray:
        return rs.apply_formula(stats.formula, table[idx].sum(axis=-2) + offset)

    return metric


def _check_interval(stats: rs.ItemStats) -> None:
    ours = rs.bootstrap_interval(stats, samples=1000, seed=0)
    ref = sps.bootstrap(
        (np.arange(stats.n),),
        _metric_of(stats),
        n_resamples=4999,
        batch=250,
        method="percentile",
        vectorized=True,
        random_state=np.random.default_rng(SEED),
    ).confidence_interval
    width = ref.high - ref.low
    if width == 0:  # every resample equal (e.g. nothing found): ours too
        assert ours.half_width == 0
        return
    assert abs(ours.low - ref.low) <= 0.1 * width
    assert abs(ours.high - ref.high) <= 0.1 * width


def _check_p(a: rs.ItemStats, b: rs.ItemStats) -> float:
    n = a.n
    table = np.vstack([a.values, b.values])
    off_a, off_b = np.asarray(a.offset), np.asarray(b.offset)

    def statistic(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        m_x = rs.apply_formula(a.formula, table[x].sum(axis=-2) + off_a)
        m_y = rs.apply_formula(a.formula, table[y].sum(axis=-2) + off_b)
        return np.abs(m_x - m_y)

    ref = sps.permutation_test(
        (np.arange(n), np.arange(n) + n),
        statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=4999,
        batch=100,
        alternative="greater",
        random_state=np.random.default_rng(SEED),
    ).pvalue
    _, _, ours = rs.compare(a, b, samples=1000, trials=1000, seed=0)
    if rs.exact_randomisation(n, 1000):
        assert ours == pytest.approx(ref, abs=1e-12)
    else:
        tol = 4 * np.sqrt(ref * (1 - ref) * (1 / 1001 + 1 / 5000)) + 2 / 1001
        assert abs(ours - ref) <= tol
    return ours


@pytest.mark.parametrize(
    "slug", ["bilingual_term_alignment", "term_extraction", "sentence_alignment"]
)
def test_demo_boards_agree_with_scipy(slug: str) -> None:
    tt = registry.get(slug)
    by_test_set: dict[str, list[rs.ItemStats]] = {}
    for ts, _method, report in demo_reports(slug):
        stats = tt.item_statistics(report)
        assert stats is not None
        by_test_set.setdefault(ts, []).append(stats)
    for runs in by_test_set.values():
        for stats in runs:
            if stats.n >= 2 and rs.bootstrap_interval(stats).half_width > 0:
                _check_interval(stats)
        if runs[0].n >= 2:
            for a, b in zip(runs, runs[1:], strict=False):
                _check_p(a, b)


def test_two_documents_exact_test_is_scipys_and_cannot_reach_alpha() -> None:
    tt = registry.get("sentence_alignment")
    runs = [
        tt.item_statistics(r)
        for ts, _, r in demo_reports("sentence_alignment")
        if ts == "reports"
    ]
    assert runs[0].n == 2
    assert _check_p(runs[0], runs[-1]) == 0.5 == rs.bands.smallest_p(2, 1000)


def _bucc_real() -> list[rs.ItemStats]:
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    tt = registry.get("bilingual_term_alignment")
    settings = tt.parse_settings({})
    inputs = tt.parse_inputs(
        {
            "source_terms": (base / "source_terms.txt").read_bytes(),
            "target_terms": (base / "target_terms.txt").read_bytes(),
        },
        settings,
    )
    gold = tt.parse_gold({"gold": (base / "gold.tsv").read_bytes()}, inputs, settings)
    out = []
    for name in ("cognates.tsv", "muse_lookup.tsv", "combined.tsv"):
        data = (base / "runs" / name).read_bytes()
        run = tt.parse_run(data, name, inputs, settings)
        stats = tt.item_statistics(tt.score(run, gold, inputs, settings))
        assert stats is not None
        out.append(stats)
    # A near copy of the last run (every 40th found pair's precision halved), so
    # that one pair's p-value is neither 0 nor 1.
    last = out[-1]
    values = last.values.copy()
    values[::40, 0] *= 0.5
    out.append(rs.ItemStats(last.keys, values, last.formula, last.offset))
    return out


def test_real_bucc_runs_agree_with_scipy() -> None:
    runs = _bucc_real()
    for stats in runs:
        _check_interval(stats)
    for a, b in zip(runs, runs[1:], strict=False):
        _check_p(a, b)


def _scored(slug: str, settings: dict, inputs: dict, gold: dict, runs: dict):  # noqa: ANN202
    """Each run (file name -> bytes) scored by the task type, as ``ItemStats``."""
    tt = registry.get(slug)
    parsed = tt.parse_settings(settings)
    ins = tt.parse_inputs(inputs, parsed)
    gold_parsed = tt.parse_gold(gold, ins, parsed)
    out = []
    for name, data in runs.items():
        run = tt.parse_run(data, name, ins, parsed)
        stats = tt.item_statistics(tt.score(run, gold_parsed, ins, parsed))
        assert stats is not None
        out.append(stats)
    return out


def test_real_acter_termometer_runs_agree_with_scipy() -> None:
    """TermoMeter's TF over gold terms (subsampled, see the module docstring).
    Monte Carlo tolerance: interval ends within 10 % of scipy's interval width
    (B = 1,000 against 4,999); the randomisation p (R = 1,000 against 4,999) within
    ``4 sqrt(p (1 - p) (1/1001 + 1/5000)) + 2/1001``."""
    acter = shared_data("term_extraction", "acter", "en", "htfl", "annotated")
    lines = (
        (acter / "annotations" / "unique_annotation_lists" / "htfl_en_terms.tsv")
        .read_bytes()
        .splitlines(keepends=True)
    )
    results = shared_data("term_extraction", "prompt_ate_template_results")
    names = ("corp_wind_equi", "wind_equi_corp")
    runs = _scored(
        "term_extraction",
        {"accept_formats": ["csv"]},
        {},
        {"gold": b"".join(lines[::8])},  # subsampled: see the module docstring
        {f"{n}.csv": (results / f"{n}_htfl_en_ann.csv").read_bytes() for n in names},
    )
    assert {r.n for r in runs} == {len(lines[::8])}  # one unit per gold term
    for stats in runs:
        _check_interval(stats)
    assert 0.05 < _check_p(*runs) < 0.95  # neither clearly apart nor equal


def text_berg_runs() -> list[rs.ItemStats]:
    """Text+Berg's 7 de-fr documents (in full) aligned by 3 published aligners,
    scored by the sentence-alignment task type (its primary F1 over sentence
    bisegments; unit: document)."""
    root = shared_data("sentence_alignment")
    data = root / "vecalign_bleualign_data"
    derived = root / "derived_bleualign_refer_as_indices"
    docs = range(7)

    def text_run(path_of) -> bytes:  # noqa: ANN001
        return b"".join(f"# test{i}\n".encode() + path_of(i).read_bytes() for i in docs)

    return _scored(
        "sentence_alignment",
        {},
        {"documents": zip_bytes({
            **{f"test{i}.src": (data / f"test{i}.de").read_bytes() for i in docs},
            **{f"test{i}.tgt": (data / f"test{i}.fr").read_bytes() for i in docs},
        })},
        {"gold": zip_bytes({
            f"test{i}.align": (data / f"test{i}.defr").read_bytes() for i in docs
        })},
        {
            "bertalign.txt": text_run(
                lambda i: root / "bertalign_textberg_auto" / f"00{i + 1}.align"),
            "bleualign.zip": zip_bytes({
                f"test{i}.align": (derived / f"eval1989.google..test{i}.defr").read_bytes()
                for i in docs
            }),
            "galechurch.txt": text_run(
                lambda i: derived / f"eval1989-galechurch.test{i}.defr"),
        },
    )  # fmt: skip


def test_real_text_berg_alignments_agree_with_scipy() -> None:
    """The primary F1 (sentence level) over Text+Berg's 7 documents (in full). Monte Carlo tolerance:
    interval ends within 10 % of scipy's width (B = 1,000 against 4,999); the
    p-values exact on both sides (2^7 swaps enumerated), so equal to 1e-12."""
    runs = text_berg_runs()
    assert {r.n for r in runs} == {7}  # one unit per document
    assert rs.exact_randomisation(7, 1000)
    for stats in runs:
        _check_interval(stats)
    for a, b in zip(runs, runs[1:], strict=False):
        assert _check_p(a, b) >= rs.bands.smallest_p(7, 1000)
