"""The paper's tables 1-4 as a leaderboard figure: rows from stored per-item records
agree with the scorer's own tables."""

from __future__ import annotations

from tasks.base import RunDetail
from tasks.mt_lexicon_probe.plots import paper_table_rows, paper_tables
from tasks.mt_lexicon_probe.probes import FreqClass
from tasks.mt_lexicon_probe.scoring import MEASURES
from tasks.mt_lexicon_probe.tags import Tag
from tests.task_types.mt_lexicon_probe.test_task import _demo_parts


def _percent(v: object) -> str:
    return "–" if v is None else f"{100 * v:.0f}"  # type: ignore[operator]


def test_worked_example():
    items = [
        {
            "id": "a",
            "pos": "adj",
            "freq_class": "low",
            "tag": "c",
            "source": "judgement",
        },
        {"id": "b", "pos": "adj", "freq_class": "low", "tag": "u", "source": "auto_u"},
        {
            "id": "c",
            "pos": "noun",
            "freq_class": "high",
            "tag": "wd",
            "source": "memory",
        },
        {
            "id": "d",
            "pos": "verb",
            "freq_class": "high",
            "tag": None,
            "source": "pending",
        },
    ]
    rows = paper_table_rows([RunDetail("A", {"items": items}, (), {})])
    assert rows["translated"] == [
        ["A", "– / – / 50", "100 / – / –", "– / – / –", "100 / – / 50"]
    ]
    assert rows["wrong_determiners"] == [["A", "1", "1"]]


def test_rows_equal_the_scorers_tables_for_the_demo_systems():
    tt, settings, inputs, gold, runs = _demo_parts()
    details = []
    reports = {}
    for name, run in runs.items():
        report = tt.score_judged(
            run, gold, inputs, settings, {"adj-low-002": Tag.WRONG_DETERMINER}
        )
        reports[name] = report
        details.append(RunDetail(name, report.detail, (), report.metrics))
    rows = paper_table_rows(details)
    for measure in MEASURES:
        for row in rows[measure]:
            table = reports[row[0]].payload[measure]
            expected = [
                " / ".join(_percent(table[g][fc.value]) for fc in FreqClass)
                for g in ("adj", "noun", "verb", "mean")
            ]
            assert row[1:] == expected, (measure, row)
    counts = {r[0]: r[1:] for r in rows["wrong_determiners"]}
    for name, report in reports.items():
        payload = report.payload
        assert counts[name] == [
            str(payload["wrong_determiners"]),
            str(payload["n_pending"]),
        ]
    # Proposed c left out when the task does not count it: more pending.
    strict = paper_table_rows(details, count_proposed=False)["wrong_determiners"]
    assert sum(int(r[2]) for r in strict) > sum(
        int(r[2]) for r in rows["wrong_determiners"]
    )
    plot = paper_tables(details)
    assert plot is not None and plot.key == "tables"
    assert plot.svg.startswith(b"<?xml") and plot.png[:4] == b"\x89PNG"
    assert paper_tables([]) is None
