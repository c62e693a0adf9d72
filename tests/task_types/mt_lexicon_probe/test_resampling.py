from __future__ import annotations

import pytest

from tasks import registry
from tasks.mt_lexicon_probe.resampling import item_stats
from tests.task_types.common.demo_runs import demo_reports

SLUG = "mt_lexicon_probe"


def _item(i: int, pos: str, tag: str | None, source: str = "judgement") -> dict:
    return {
        "id": f"p{i}",
        "pos": pos,
        "freq_class": "low",
        "tag": tag,
        "source": source,
    }


def test_docstring_example() -> None:
    items = [
        _item(1, "adj", "c"),
        _item(2, "adj", "w"),
        _item(3, "noun", "c"),
        _item(4, "verb", None, "pending"),
        {**_item(5, "verb", "u"), "freq_class": "high"},
    ]
    stats = item_stats({"items": items}, {})
    assert stats is not None
    assert stats.keys == ("p1", "p2", "p3", "p4")
    assert stats.value() == pytest.approx(0.75)


def test_proposed_correct_not_counted_when_the_task_says_so() -> None:
    items = [_item(1, "adj", "c", "proposed_c"), _item(2, "adj", "w")]
    counted = item_stats({"items": items}, {"settled_by": {"proposed_c": 1}})
    assert counted is not None and counted.value() == 0.5
    pending = item_stats({"items": items}, {"settled_by": {"proposed_c": 0}})
    assert pending is not None and pending.value() == 0.0


def test_recomputes_the_published_metric_on_every_demo_run() -> None:
    tt = registry.get(SLUG)
    reports = demo_reports(SLUG)
    assert reports
    for _, _, report in reports:
        stats = tt.item_statistics(report)
        assert stats is not None
        expected = report.metrics["correct_low_mean"]
        assert expected is not None
        assert stats.value() == pytest.approx(expected, abs=1e-12)
