"""Pinned numbers on the real runs (``bilingual_term_alignment/wiktionary_en_de/test``).

OFFICIAL: the organisers' scorer, github PierreZweigenbaum/bucc2022 ``evaluation.py``
v1.1 (commit e316e76), with pandas 2.3.3 (its ``--interpolated`` code fails on pandas 3),
run with the organisers' OOV setting:

    python evaluation.py -g test/gold.tsv -s test/source_terms.txt \
        -t test/target_terms.txt -i --interpolated --details test/runs/<run>.tsv

It prints 4 decimals; the full-precision values below come from calling its functions
(``f_read_list``, ``filter_oov``, ``set_measures``, ``average_precision_interpolated``)
exactly as its ``__main__`` does with ``-i --interpolated``. P@100, P@1000 and
R-precision are counted from its ``--details`` table (the rank k of every true
positive). MAP over source terms applies its ``average_precision_uninterpolated`` to
each gold source term's sub-list of the filtered run (one query per gold source term).
"""

from __future__ import annotations

import pytest

from tasks import registry
from tasks.base import FormatError
from tests.paths import shared_data

TOL = 1e-9

OFFICIAL = {
    "cognates": dict(
        ap=0.049584698827213836,
        ap_interpolated=0.05153416091529075,
        n_sys=14550, n_gold=2884, tp=346, fp=14204, fn=2538,
        precision=0.023780068728522338,
        recall=0.11997226074895978,
        f1=0.03969255477801996,
        p_at_100=82 / 100, p_at_1000=215 / 1000, r_precision=265 / 2884,
        map_source=0.12164948453608247,
    ),
    "combined": dict(
        ap=0.042416868419826635,
        ap_interpolated=0.047872367067628076,
        n_sys=14692, n_gold=2884, tp=346, fp=14346, fn=2538,
        precision=0.023550231418459026,
        recall=0.11997226074895978,
        f1=0.039371870732817484,
        p_at_100=76 / 100, p_at_1000=210 / 1000, r_precision=265 / 2884,
        map_source=0.12127147766323025,
    ),
    "gold_as_run": dict(
        ap=1.0, ap_interpolated=1.0,
        n_sys=2884, n_gold=2884, tp=2884, fp=0, fn=0,
        precision=1.0, recall=1.0, f1=1.0,
        p_at_100=1.0, p_at_1000=1.0, r_precision=1.0, map_source=1.0,
    ),
    "long_tail": dict(
        ap=0.03128866739791313,
        ap_interpolated=0.035414097105876535,
        n_sys=48500, n_gold=2884, tp=612, fp=47888, fn=2272,
        precision=0.012618556701030927,
        recall=0.21220527045769763,
        f1=0.023820644558617467,
        p_at_100=13 / 100, p_at_1000=237 / 1000, r_precision=364 / 2884,
        map_source=0.1688604429171439,
    ),
    "muse_lookup": dict(
        ap=0.0, ap_interpolated=0.0,
        n_sys=158, n_gold=2884, tp=0, fp=158, fn=2884,
        precision=0.0, recall=0.0, f1=0.0,
        p_at_100=0.0, p_at_1000=0.0, r_precision=0.0, map_source=0.0,
    ),
    # official prints nSys 0, TP/FP 0, FN 2884 and zeros for AP, P, R, F1
    "empty": dict(
        ap=0.0, ap_interpolated=0.0,
        n_sys=0, n_gold=2884, tp=0, fp=0, fn=2884,
        precision=0.0, recall=0.0, f1=0.0,
        p_at_100=0.0, p_at_1000=0.0, r_precision=0.0, map_source=0.0,
    ),
}  # fmt: skip

#: The official scorer on messy.tsv with -i: repeats count again (TP 354 > 346) and
#: the BOM and the spaces around tabs make pairs OOV, so its numbers differ from ours.
OFFICIAL_MESSY = dict(ap=0.048689664420149964, n_sys=14594, tp=354)

TT = registry.get("bilingual_term_alignment")


@pytest.fixture(scope="module")
def task_files():
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    settings = TT.parse_settings({})
    inputs = TT.parse_inputs(
        {
            "source_terms": (base / "source_terms.txt").read_bytes(),
            "target_terms": (base / "target_terms.txt").read_bytes(),
        },
        settings,
    )
    gold = TT.parse_gold({"gold": (base / "gold.tsv").read_bytes()}, inputs, settings)
    return base, settings, inputs, gold


def score(task_files, name):
    base, settings, inputs, gold = task_files
    data = (base / "runs" / f"{name}.tsv").read_bytes()
    run = TT.parse_run(data, f"{name}.tsv", inputs, settings)
    return run, TT.score(run, gold, inputs, settings)


@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_equals_official_scorer(task_files, name):
    run, report = score(task_files, name)
    expected = OFFICIAL[name]
    for key, value in expected.items():
        assert report.payload[key] == pytest.approx(value, abs=TOL, rel=0), key
    assert report.payload["n_oov"] == 0 and report.payload["n_duplicates"] == 0
    for key in ("ap", "ap_interpolated", "f1", "map_source", "tp"):
        assert report.metrics[key] == pytest.approx(expected[key], abs=TOL, rel=0)


@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_average_precisions_equal_the_official_to_the_last_bit(task_files, name):
    """Summed in rank order as ``evaluation.py`` sums (numpy's pairwise sum gave
    0.03128866739791317 for long_tail's AP, where the official prints ...313)."""
    _, report = score(task_files, name)
    for key in ("ap", "ap_interpolated"):
        assert report.payload[key] == OFFICIAL[name][key], key


def test_messy_cleaned_equals_cognates(task_files):
    base, settings, inputs, _ = task_files
    messy, messy_report = score(task_files, "messy")
    cognates, cognates_report = score(task_files, "cognates")
    assert messy.pairs == cognates.pairs
    assert (messy.n_lines, messy.n_duplicates, messy.n_oov) == (14800, 50, 200)
    for key, value in OFFICIAL["cognates"].items():
        assert messy_report.payload[key] == pytest.approx(value, abs=TOL, rel=0), key
    assert messy_report.payload["n_oov"] == 200
    assert messy_report.payload["n_duplicates"] == 50
    assert len(messy_report.warnings) == 2
    # the official scorer counts repeats again; we do not
    assert messy_report.payload["tp"] < OFFICIAL_MESSY["tp"]
    assert messy_report.payload["ap"] != pytest.approx(OFFICIAL_MESSY["ap"], abs=1e-6)


def test_long_tail_under_default_cap_and_rejected_under_a_small_one(task_files):
    base, _, inputs, _ = task_files
    data = (base / "runs" / "long_tail.tsv").read_bytes()
    small = TT.parse_settings({"cap_factor": 5.0})  # cap = 5 x 6085 = 30425 < 48500
    with pytest.raises(FormatError, match="30,425"):
        TT.parse_run(data, "long_tail.tsv", inputs, small)
    cut = TT.parse_settings({"cap_factor": 5.0, "cap_policy": "truncate"})
    assert len(TT.parse_run(data, "long_tail.tsv", inputs, cut).pairs) == 30425
