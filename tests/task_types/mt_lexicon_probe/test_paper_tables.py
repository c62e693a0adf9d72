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


def test_the_analysis_holds_the_same_tables_with_runs_as_columns():
    from tasks.mt_lexicon_probe.analysis import paper_tables as analysis_tables

    tt, settings, inputs, gold, runs = _demo_parts()
    details, reports = [], {}
    for name, run in runs.items():
        report = tt.score_judged(
            run, gold, inputs, settings, {"adj-low-002": Tag.WRONG_DETERMINER}
        )
        reports[name] = report
        details.append(RunDetail(name, report.detail, (), report.metrics))
    analysis = tt.analyse(details, gold, settings)
    assert analysis is not None and analysis.plots == () and analysis.private == {}
    public = analysis.public
    assert public["runs"] == list(runs)
    names = {"adj": "adjectives", "noun": "nouns", "verb": "verbs", "mean": "mean"}
    for measure in public["measures"]:
        assert [(r["group"], r["freq"]) for r in measure["rows"]] == [
            (names[g], fc.value) for g in names for fc in FreqClass
        ]
        for row in measure["rows"]:
            group = next(g for g, n in names.items() if n == row["group"])
            for name, value in zip(public["runs"], row["values"], strict=True):
                share = reports[name].payload[measure["key"]][group][row["freq"]]
                assert value == (None if share is None else 100 * share)
    assert public["wrong_determiners"] == [
        reports[n].payload["wrong_determiners"] for n in runs
    ]
    assert public["pending"] == [reports[n].payload["n_pending"] for n in runs]
    # A run off the public board gets no column; no run, no analysis.
    first, *rest = details
    hidden = RunDetail(first.label, first.detail, (), first.metrics, shown=False)
    partial = analysis_tables([hidden, *rest])
    assert partial is not None and partial.public["runs"] == list(runs)[1:]
    assert analysis_tables([hidden]) is None
