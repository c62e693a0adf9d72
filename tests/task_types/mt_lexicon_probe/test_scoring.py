from __future__ import annotations

import pytest

from tasks.mt_lexicon_probe.scoring import Cell, annotator_agreement, cohen_kappa, share
from tasks.mt_lexicon_probe.tags import Tag
from tasks.mt_lexicon_probe.task import Gold, MtLexiconProbe, MtLexiconProbeSettings

# 2 probes per cell; tags chosen so that every cell is checked by hand below.
# "-" = no judgement (pending). Translations never contain the word: no auto tags.
FIXTURE = [
    ("a1", "adj", "high", "c"), ("a2", "adj", "high", "c"),
    ("a3", "adj", "medium", "u"), ("a4", "adj", "medium", "wf"),
    ("a5", "adj", "low", "-"), ("a6", "adj", "low", "m"),
    ("n1", "noun", "high", "wd"), ("n2", "noun", "high", "c"),
    ("n3", "noun", "medium", "f"), ("n4", "noun", "medium", "s"),
    ("n5", "noun", "low", "u"), ("n6", "noun", "low", "wd"),
    ("v1", "verb", "high", "c"), ("v2", "verb", "high", "w"),
    ("v3", "verb", "medium", "-"), ("v4", "verb", "medium", "-"),
    ("v5", "verb", "low", "wf"), ("v6", "verb", "low", "u"),
]  # fmt: skip

PROBES = "".join(f"{i}\tword{i}\t{p}\t{f}\tThe word{i}.\n" for i, p, f, _ in FIXTURE)
RUN = "".join(f"Übersetzung {i}.\n" for i, *_ in FIXTURE)
JUDGEMENTS = "".join(f"{i}\t{t}\n" for i, _, _, t in FIXTURE if t != "-")

# Hand computation, share = (J - negatives) / J per cell:
#              translated (not u)   correct (not u,w,m)   strict (not u,w,m,wf)
# adj  high    c c: 2/2 = 1         2/2 = 1               2/2 = 1
# adj  medium  u wf: 1/2            1/2 (wf positive)     0/2 = 0
# adj  low     m (J=1): 1/1 = 1     0/1 = 0               0/1 = 0
# noun high    wd c: 2/2            2/2                   2/2
# noun medium  f s: 2/2             2/2                   2/2
# noun low     u wd: 1/2            1/2                   1/2
# verb high    c w: 2/2             1/2                   1/2
# verb medium  nothing judged: null null null
# verb low     wf u: 1/2            1/2                   0/2
EXPECTED = {
    "translated": {
        "adj": (1.0, 0.5, 1.0),
        "noun": (1.0, 1.0, 0.5),
        "verb": (1.0, None, 0.5),
    },
    "correct": {
        "adj": (1.0, 0.5, 0.0),
        "noun": (1.0, 1.0, 0.5),
        "verb": (0.5, None, 0.5),
    },
    "correct_strict": {
        "adj": (1.0, 0.0, 0.0),
        "noun": (1.0, 1.0, 0.5),
        "verb": (0.5, None, 0.0),
    },
}
# Means over the word classes with a defined share:
# translated: high 3/3 = 1; medium (0.5 + 1)/2 = 0.75; low (1 + 0.5 + 0.5)/3 = 2/3
# correct: high (1 + 1 + 0.5)/3 = 5/6; medium (0.5 + 1)/2 = 0.75; low (0 + 0.5 + 0.5)/3 = 1/3
# strict: high 5/6; medium (0 + 1)/2 = 0.5; low (0 + 0.5 + 0)/3 = 1/6
EXPECTED_MEAN = {
    "translated": (1.0, 0.75, 2 / 3),
    "correct": (5 / 6, 0.75, 1 / 3),
    "correct_strict": (5 / 6, 0.5, 1 / 6),
}


def _score():
    from tasks.mt_lexicon_probe.probes import parse_judgements, parse_probes, parse_run

    tt = MtLexiconProbe()
    probes = parse_probes(PROBES.encode(), "probes.tsv")
    run = parse_run(RUN.encode(), "run.txt", probes)
    judgements = parse_judgements(JUDGEMENTS.encode(), "j.tsv", probes)
    return tt.score_judged(run, Gold(), probes, MtLexiconProbeSettings(), judgements)


def test_tables_by_hand():
    payload = _score().payload
    for measure, rows in EXPECTED.items():
        for pos, values in rows.items():
            got = tuple(payload[measure][pos][fc] for fc in ("high", "medium", "low"))
            assert got == pytest.approx(values), (measure, pos)
        mean = tuple(payload[measure]["mean"][fc] for fc in ("high", "medium", "low"))
        assert mean == pytest.approx(EXPECTED_MEAN[measure]), measure
    # wd: n1 and n6 (table 4 counts all frequency classes)
    assert payload["wrong_determiners"] == 2
    assert (payload["n_items"], payload["n_judged"], payload["n_pending"]) == (
        18,
        15,
        3,
    )
    assert payload["auto_tags"] == 0
    assert payload["provisional"] is True
    assert payload["settled_by"] == {
        "judgement": 15,
        "memory": 0,
        "auto_u": 0,
        "proposed_c": 0,
        "pending": 3,
    }
    assert payload["cells"]["verb"]["medium"] == {
        "n_items": 2,
        "n_judged": 0,
        "tags": {},
    }


def test_metrics_match_payload():
    report = _score()
    assert report.metrics["correct_low_mean"] == pytest.approx(1 / 3)
    assert report.metrics["correct_strict_medium_mean"] == pytest.approx(0.5)
    assert report.metrics["wrong_determiners"] == 2
    assert report.metrics["n_pending"] == 3
    assert report.metrics["judged_share"] == pytest.approx(15 / 18)
    assert {m.key for m in MtLexiconProbe.metrics} == set(report.metrics)


def test_share_empty_cell_is_null():
    assert share(Cell(3, {}), "correct") is None


def test_kappa_hand_checked():
    # 50 items: both c 20, a c / b w 5, a w / b c 10, both w 15.
    # p_o = 35/50 = 0.7; a: 25 c, 25 w; b: 30 c, 20 w;
    # p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    a = ["c"] * 25 + ["w"] * 25
    b = ["c"] * 20 + ["w"] * 5 + ["c"] * 10 + ["w"] * 15
    agreement = cohen_kappa(a, b)
    assert agreement.observed == pytest.approx(0.7)
    assert agreement.expected == pytest.approx(0.5)
    assert agreement.kappa == pytest.approx(0.4)


def test_kappa_three_tags_and_edges():
    # a: u u c c w ; b: u c c c m -> agree on 3 of 5: p_o = 0.6
    # a: u 2, c 2, w 1; b: u 1, c 3, m 1 -> p_e = (2*1 + 2*3 + 0) / 25 = 0.32
    # kappa = (0.6 - 0.32) / 0.68 = 0.41176...
    a = [Tag.UNKNOWN, Tag.UNKNOWN, Tag.CORRECT, Tag.CORRECT, Tag.WRONG]
    b = [Tag.UNKNOWN, Tag.CORRECT, Tag.CORRECT, Tag.CORRECT, Tag.MISSING]
    assert cohen_kappa(a, b).kappa == pytest.approx(0.28 / 0.68)
    assert cohen_kappa([], []).kappa == 0.0
    assert cohen_kappa(["c", "c"], ["c", "c"]).kappa == 0.0  # p_e = 1: 0/0 -> 0.0
    assert cohen_kappa(["c", "w"], ["w", "c"]).kappa == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        cohen_kappa(["c"], [])


def test_annotator_agreement_uses_common_items():
    first = {"a": Tag.CORRECT, "b": Tag.WRONG, "c": Tag.CORRECT}
    second = {"b": Tag.WRONG, "c": Tag.WRONG, "d": Tag.CORRECT}
    agreement = annotator_agreement(first, second)
    # items b, c: agree on b only; a: w 1, c 1; b: w 2 -> p_e = 1*2/4 = 0.5; kappa 0
    assert agreement.n_items == 2
    assert agreement.observed == 0.5
    assert agreement.kappa == 0.0
