from __future__ import annotations

import pytest

from tasks import registry
from tasks.term_extraction.resampling import item_stats
from tests.task_types.common.demo_runs import demo_reports

SLUG = "term_extraction"


def test_docstring_example_seed_000() -> None:
    detail = {
        "tau": 0.4,
        "clusters": [
            {"gold": "data base", "label": None, "line": 1, "pert": 1.0, "outputs": []}
        ],
        "unmatched_outputs": [
            {"term": "table of content", "nearest": "data base", "distance": 0.9}
        ],
        "unreached_gold": [],
    }
    stats = item_stats(detail)
    assert stats is not None
    assert stats.offset == (0.0, 1.0, 0.0, 0.0)
    assert stats.value() == pytest.approx(2 / 3)


def test_recomputes_the_published_tf_on_every_demo_run() -> None:
    tt = registry.get(SLUG)
    reports = demo_reports(SLUG)
    assert reports
    for _, _, report in reports:
        stats = tt.item_statistics(report)
        assert stats is not None
        assert stats.value() == pytest.approx(report.metrics["term_f1"], abs=1e-12)


def test_gold_terms_pair_up_across_runs() -> None:
    tt = registry.get(SLUG)
    keys = {tt.item_statistics(r).keys for _, _, r in demo_reports(SLUG)}  # type: ignore[union-attr]
    assert len(keys) == 1
