from __future__ import annotations

import pytest

from tasks import registry
from tasks.sentence_alignment.resampling import item_stats
from tests.task_types.common.demo_runs import demo_reports

SLUG = "sentence_alignment"


def _doc(name: str, c: int, p: int, cr: int, r: int) -> dict:
    counts = {"correct": c, "proposed": p, "correct_reference": cr, "reference": r}
    return {"document": name, "counts": {"sentence": counts}}


def test_docstring_example() -> None:
    detail = {"documents": [_doc("a", 1, 3, 1, 2), _doc("b", 2, 2, 2, 2)]}
    stats = item_stats(detail, {"primary_granularity": "sentence"})
    assert stats is not None
    assert stats.keys == ("a", "b")
    assert stats.value() == pytest.approx(2 / 3)


def test_recomputes_the_published_f1_on_every_demo_run() -> None:
    tt = registry.get(SLUG)
    reports = demo_reports(SLUG)
    assert reports
    for _, _, report in reports:
        stats = tt.item_statistics(report)
        assert stats is not None
        assert stats.value() == pytest.approx(report.metrics["f1"], abs=1e-12)


@pytest.mark.parametrize("level", ["alignment", "word", "char"])
def test_other_granularities(level: str) -> None:
    for _, _, report in demo_reports(SLUG):
        payload = {**report.payload, "primary_granularity": level}
        stats = item_stats(report.detail, payload)
        assert stats is not None
        assert stats.value() == pytest.approx(report.metrics[f"{level}_f1"])
