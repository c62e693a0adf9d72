"""Pinned numbers on the real Text+Berg de–fr data (vecalign/Bleualign gold) for real
aligner outputs. Strict/lax counts and F1 come from vecalign's own ``score.py``
(thompsonb/vecalign, run unmodified on these files); ARCADE counts are pinned from this
implementation and cross-checked against a brute-force enumeration on one document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tasks.cli import main
from tasks.sentence_alignment.formats import (
    Alignment,
    Document,
    parse_alignments,
    parse_sentences,
)
from tasks.sentence_alignment.metrics import LEVELS, LevelCounts, micro, score_document
from tests.paths import shared_data

from .test_metrics import _naive

ROOT = "sentence_alignment"
TESTS = range(7)
BLEUALIGN = {
    "galechurch": "eval1989-galechurch",
    "bleualign_europarlfull": "eval1989.europarlfull.",
    "bleualign_europarlfull_x2": "eval1989.europarlfull..europarlfull",
    "bleualign_europarllight_x2": "eval1989.europarllight..europarllight",
    "bleualign_google": "eval1989.google.",
    "bleualign_all_x2": "eval1989.europarlfull.europarllight.google..europarlfull.europarllight.google",
}

# vecalign score.py: precision (tp, fp) and recall (tp, fn) counts, strict then lax,
# and its printed F1 (rounded to 6 places).
VECALIGN = {
    "bertalign": ((826, 55, 875, 6), (807, 51, 850, 8), 0.939063, 0.991931),
    "galechurch": ((382, 284, 469, 197), (382, 476, 465, 393), 0.501312, 0.612519),
    "bleualign_europarlfull": (
        (674, 139, 795, 18),
        (674, 184, 790, 68),
        0.806703,
        0.948444,
    ),
    "bleualign_europarlfull_x2": (
        (590, 54, 635, 9),
        (590, 268, 630, 228),
        0.785619,
        0.841723,
    ),
    "bleualign_europarllight_x2": (
        (393, 47, 431, 9),
        (393, 465, 429, 429),
        0.605547,
        0.662058,
    ),
    "bleualign_google": ((676, 137, 795, 18), (676, 182, 792, 66), 0.809096, 0.949679),
    "bleualign_all_x2": ((146, 10, 154, 2), (146, 712, 153, 705), 0.287968, 0.302077),
}
VECALIGN_DEV = {
    "eval1957-galechurch": (
        (266, 116, 365, 17),
        (266, 115, 350, 31),
        0.697248,
        0.936704,
    ),
    "eval1957.SACunidir.": ((292, 102, 387, 7), (292, 89, 368, 13), 0.753548, 0.973988),
    "eval1957.SACunidir..europarlfull": (
        (241, 56, 294, 3),
        (241, 140, 281, 100),
        0.710914,
        0.845281,
    ),
    "eval1957.europarlfull..europarllight": (
        (210, 48, 256, 2),
        (210, 171, 245, 136),
        0.657277,
        0.780362,
    ),
    "eval1957.europarllight.": (
        (231, 126, 340, 17),
        (231, 150, 325, 56),
        0.626016,
        0.899965,
    ),
}

# ARCADE (correct, proposed, reference) for alignment, sentence, word, char over test0..6.
ARCADE = {
    "bertalign": (
        (826, 881, 916),
        (1059, 1132, 1096),
        (695107, 731977, 714793),
        (13559129, 14215297, 13935837),
    ),
    "galechurch": (
        (382, 666, 916),
        (538, 913, 1096),
        (385338, 580248, 714793),
        (7485365, 11289504, 13935837),
    ),
    "bleualign_europarlfull": (
        (674, 813, 916),
        (914, 1000, 1096),
        (631757, 660426, 714793),
        (12277489, 12831307, 13935837),
    ),
    "bleualign_google": (
        (676, 813, 916),
        (913, 999, 1096),
        (640857, 665100, 714793),
        (12479350, 12931650, 13935837),
    ),
}


def _document(split: str) -> Document:
    base = shared_data(ROOT, "vecalign_bleualign_data")
    return Document(
        split,
        parse_sentences((base / f"{split}.de").read_bytes(), f"{split}.de"),
        parse_sentences((base / f"{split}.fr").read_bytes(), f"{split}.fr"),
    )


def _alignment(path: Path, doc: Document) -> Alignment:
    return parse_alignments(path.read_bytes(), path.name, [doc]).alignments[0]


def _run_path(system: str, i: int) -> Path:
    if system == "bertalign":
        return shared_data(ROOT, "bertalign_textberg_auto", f"00{i + 1}.align")
    return shared_data(
        ROOT, "derived_bleualign_refer_as_indices", f"{BLEUALIGN[system]}.test{i}.defr"
    )


@pytest.fixture(scope="module")
def test_docs() -> list[tuple[Document, Alignment]]:
    out = []
    for i in TESTS:
        doc = _document(f"test{i}")
        out.append(
            (
                doc,
                _alignment(
                    shared_data(ROOT, "vecalign_bleualign_data", f"test{i}.defr"), doc
                ),
            )
        )
    return out


def _score(system: str, docs: list[tuple[Document, Alignment]]) -> LevelCounts:
    return micro(
        system,
        [
            score_document(d, g, _alignment(_run_path(system, i), d)).counts
            for i, (d, g) in enumerate(docs)
        ],
    )


def _check_vecalign(total: LevelCounts, expected: tuple) -> None:  # type: ignore[type-arg]
    (ps, fps, pl, fpl), (rs, fns, rl, fnl), f_strict, f_lax = expected
    strict, lax = total.get("strict"), total.get("lax")
    assert (
        strict.correct,
        strict.proposed,
        strict.correct_reference,
        strict.reference,
    ) == (ps, ps + fps, rs, rs + fns)
    assert (lax.correct, lax.proposed, lax.correct_reference, lax.reference) == (
        pl,
        pl + fpl,
        rl,
        rl + fnl,
    )
    assert round(strict.scores[2], 6) == f_strict
    assert round(lax.scores[2], 6) == f_lax


@pytest.mark.parametrize("system", sorted(VECALIGN))
def test_strict_lax_equal_vecalign_on_test_sets(system: str, test_docs) -> None:  # type: ignore[no-untyped-def]
    _check_vecalign(_score(system, test_docs), VECALIGN[system])


@pytest.mark.parametrize("system", sorted(VECALIGN_DEV))
def test_strict_lax_equal_vecalign_on_dev(system: str) -> None:
    doc = _document("dev")
    gold = _alignment(shared_data(ROOT, "vecalign_bleualign_data", "dev.defr"), doc)
    run = _alignment(
        shared_data(ROOT, "derived_bleualign_refer_as_indices", f"{system}.dev.defr"),
        doc,
    )
    _check_vecalign(
        micro(system, [score_document(doc, gold, run).counts]), VECALIGN_DEV[system]
    )


def test_bertalign_matches_its_paper(test_docs) -> None:  # type: ignore[no-untyped-def]
    """Bertalign paper, Text+Berg test: strict F1 ≈ 0.94, lax F1 ≈ 0.99."""
    total = _score("bertalign", test_docs)
    assert total.get("strict").scores[2] == pytest.approx(0.94, abs=0.005)
    assert total.get("lax").scores[2] == pytest.approx(0.99, abs=0.005)


@pytest.mark.parametrize("system", sorted(ARCADE))
def test_arcade_levels_pinned(system: str, test_docs) -> None:  # type: ignore[no-untyped-def]
    total = _score(system, test_docs)
    for level, (correct, proposed, reference) in zip(
        LEVELS[:4], ARCADE[system], strict=True
    ):
        c = total.get(level)
        assert (c.correct, c.proposed, c.correct_reference, c.reference) == (
            correct,
            proposed,
            correct,
            reference,
        )


def test_bertalign_arcade_values(test_docs) -> None:  # type: ignore[no-untyped-def]
    total = _score("bertalign", test_docs)
    assert [round(v, 4) for v in total.get("sentence").scores] == [
        0.9355,
        0.9662,
        0.9506,
    ]
    assert [round(v, 4) for v in total.get("char").scores] == [0.9538, 0.973, 0.9633]


def test_systems_rank_as_in_their_papers(test_docs) -> None:  # type: ignore[no-untyped-def]
    """Bertalign > Bleualign (best variant) > Gale–Church, at every level."""
    scores = {s: _score(s, test_docs) for s in VECALIGN}
    for level in LEVELS:
        bert = scores["bertalign"].get(level).scores[2]
        bleu = max(
            scores[s].get(level).scores[2]
            for s in VECALIGN
            if s.startswith("bleualign")
        )
        gale = scores["galechurch"].get(level).scores[2]
        assert bert > bleu > gale, level


def test_brute_force_unit_pairs_on_one_document(test_docs) -> None:  # type: ignore[no-untyped-def]
    doc, gold = test_docs[4]
    run = _alignment(_run_path("galechurch", 4), doc)
    counts = score_document(doc, gold, run).counts
    for level, (common, proposed, reference) in _naive(doc, gold, run).items():
        c = counts.get(level)
        assert (c.correct, c.proposed, c.reference) == (common, proposed, reference), (
            level
        )


def test_gold_against_itself(test_docs) -> None:  # type: ignore[no-untyped-def]
    total = micro("gold", [score_document(d, g, g).counts for d, g in test_docs])
    assert all(c.scores == (1.0, 1.0, 1.0) for c in total.levels)


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    base = shared_data(ROOT, "vecalign_bleualign_data")
    code = main(
        [
            "score", "sentence_alignment",
            "--source", str(base / "test0.de"),
            "--target", str(base / "test0.fr"),
            "--gold", str(base / "test0.defr"),
            "--run", str(_run_path("bertalign", 0)),
            "--json",
        ]
    )  # fmt: skip
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    for level in LEVELS:
        assert set(payload[level]) == {
            "precision",
            "recall",
            "f1",
            "correct",
            "proposed",
            "correct_reference",
            "reference",
        }
    assert payload["documents"]["test0"]["sentence"] == payload["sentence"]
    assert payload["alignment"]["reference"] == 128
    assert 0.9 < payload["strict"]["f1"] < 1.0


def test_cli_reports_format_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = shared_data(ROOT, "vecalign_bleualign_data")
    bad = tmp_path / "run.align"
    bad.write_text("[0]:[0]\n[999]:[1]\n")
    code = main(
        [
            "score", "sentence_alignment",
            "--source", str(base / "test0.de"),
            "--target", str(base / "test0.fr"),
            "--gold", str(base / "test0.defr"),
            "--run", str(bad),
            "--json",
        ]
    )  # fmt: skip
    assert code == 2
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert errors[0]["line"] == 2
    assert "out of range" in errors[0]["message"]


@pytest.mark.parametrize("i", range(7))
def test_plain_fast_path_equals_the_line_parser(i: int, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tasks.sentence_alignment import formats

    doc = _document(f"test{i}")
    path = _run_path("bertalign", i)
    # the fast path does read these files (else the comparison below proves nothing)
    text = path.read_text(encoding="utf-8").removesuffix("\n")
    assert formats._parse_plain_text(text, None, doc) is not None
    fast = formats.parse_alignments(path.read_bytes(), path.name, [doc])
    # no fast path at all: the line parser alone
    monkeypatch.setattr(formats, "_parse_plain_text", lambda *args: None)
    slow = formats.parse_alignments(path.read_bytes(), path.name, [doc])
    assert fast == slow
    assert fast.alignments[0].bisegments
