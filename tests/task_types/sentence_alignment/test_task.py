from __future__ import annotations

import pytest

from tasks import registry
from tasks.base import FormatError, RunDetail, SettingsError
from tasks.sentence_alignment.task import SentenceAlignment

from .helpers import make_zip


@pytest.fixture
def task() -> SentenceAlignment:
    tt = registry.get("sentence_alignment")
    assert isinstance(tt, SentenceAlignment)
    return tt


def _inputs(task: SentenceAlignment):  # type: ignore[no-untyped-def]
    files = {
        "a.src": "Der Hund bellt .\nDie Katze schläft , sagt er .\nEnde .\n",
        "a.tgt": "Le chien aboie .\nLe chat dort .\nDit-il .\nFin .\n",
        "b.src": "Eins .\nZwei .\n",
        "b.tgt": "Un .\nDeux .\n",
    }
    settings = task.parse_settings({})
    return settings, task.parse_inputs({"documents": make_zip(files)}, settings)


GOLD = "# a\n[0]:[0]\n[1]:[1, 2]\n[2]:[3]\n# b\n[0]:[0]\n[1]:[1]\n"


def test_score_report(task: SentenceAlignment) -> None:
    settings, inputs = _inputs(task)
    gold = task.parse_gold({"gold": GOLD.encode()}, inputs, settings)
    run = task.parse_run(
        b"# b\n[0, 1]:[0, 1]\n# a\n[0]:[0]\n[1]:[2]\n[]:[1]\n[2]:[3]\n[2]:[3]\n",
        "run.txt",
        inputs,
        settings,
    )
    report = task.score(run, gold, inputs, settings)
    assert set(report.metrics) == {m.key for m in task.metrics}
    assert task.primary_metric in report.metrics
    assert report.metrics["f1"] == report.metrics["sentence_f1"]
    assert report.metrics["alignment_precision"] == pytest.approx(2 / 5)
    assert report.payload["documents"]["a"]["alignment"]["correct"] == 2  # type: ignore[index]
    assert report.warnings == ("document 'a': 1 duplicate bisegment(s) counted once",)
    doc_a = report.detail["documents"][0]  # type: ignore[index]
    assert doc_a["document"] == "a"
    assert doc_a["spurious"][0]["bisegment"] == "[1]:[2]"
    assert doc_a["spurious"][0]["lax_match"] is True
    assert doc_a["spurious"][0]["target"] == ["Dit-il ."]
    assert doc_a["missed"][0]["source"] == ["Die Katze schläft , sagt er ."]


def test_primary_granularity_setting(task: SentenceAlignment) -> None:
    settings = task.parse_settings({"primary_granularity": "char", "detail_limit": 0})
    _, inputs = _inputs(task)
    gold = task.parse_gold({"gold": GOLD.encode()}, inputs, settings)
    run = task.parse_run(
        GOLD.replace("[1]:[1, 2]", "[1]:[1]").encode(), "run.txt", inputs, settings
    )
    report = task.score(run, gold, inputs, settings)
    assert (
        report.metrics["f1"]
        == report.metrics["char_f1"]
        != report.metrics["sentence_f1"]
    )
    assert report.detail["documents"][0]["missed"] == []  # type: ignore[index]
    assert report.detail["documents"][0]["missed_total"] == 1  # type: ignore[index]
    with pytest.raises(SettingsError):
        task.parse_settings({"primary_granularity": "paragraph"})
    with pytest.raises(SettingsError):
        task.parse_settings({"detail_limit": -1})


def test_run_errors_name_document_and_line(task: SentenceAlignment) -> None:
    settings, inputs = _inputs(task)
    with pytest.raises(FormatError) as info:
        task.parse_run(
            b"# a\n[0]:[0]\n# b\n[0]:[0]\n[1]:[2]\n", "run.txt", inputs, settings
        )
    problem = info.value.problems[0]
    assert (problem.file, problem.line) == ("run.txt", 5)
    assert "document 'b'" in problem.message
    with pytest.raises(FormatError, match="no alignment for document 'b'"):
        task.parse_run(b"# a\n[0]:[0]\n", "run.txt", inputs, settings)


def test_demo_runs_differ_in_quality(task: SentenceAlignment) -> None:
    demo = task.demo(seed=3)
    assert demo == task.demo(seed=3)
    settings = task.parse_settings(demo.settings)
    assert [ts.name for ts in demo.test_sets] == ["reports", "novel"]
    all_inputs = [task.parse_inputs(ts.inputs, settings) for ts in demo.test_sets]
    for index, ts in enumerate(demo.test_sets):
        inputs = all_inputs[index]
        gold = task.parse_gold(ts.gold, inputs, settings)
        assert task.score(gold, gold, inputs, settings).metrics["f1"] == 1.0
        f1 = [
            task.score(
                task.parse_phase_run(runs[ts.name], "run", all_inputs, settings)[index],
                gold,
                inputs,
                settings,
            ).metrics["f1"]
            for _, _, runs in demo.runs
        ]
        assert f1[0] > f1[1] > f1[2] > 0  # type: ignore[operator]
    assert len(demo.test_sets[0].inputs["documents"]) > 0


def test_plots(task: SentenceAlignment) -> None:
    demo = task.demo()
    settings = task.parse_settings(demo.settings)
    ts = demo.test_sets[0]
    all_inputs = [task.parse_inputs(t.inputs, settings) for t in demo.test_sets]
    inputs = all_inputs[0]
    gold = task.parse_gold(ts.gold, inputs, settings)
    details = []
    for team, _, runs in demo.runs:
        report = task.score(
            task.parse_phase_run(runs[ts.name], "run", all_inputs, settings)[0],
            gold,
            inputs,
            settings,
        )
        details.append(RunDetail(team, report.detail, report.curves, report.metrics))
    (bars,) = task.plots(report, settings)
    assert bars.svg.startswith(b"<?xml") and bars.png.startswith(b"\x89PNG")
    plots = task.comparison_plots(details, settings)
    assert [p.key for p in plots] == ["f1_by_level", "f1_by_level_log"]
    assert plots == task.comparison_plots(details, settings)  # deterministic
    assert task.comparison_plots([], settings) == ()


def test_phase_run_ignores_other_test_sets_documents_but_not_unknown_ones(
    task: SentenceAlignment,
) -> None:
    demo = task.demo()
    settings = task.parse_settings(demo.settings)
    all_inputs = [task.parse_inputs(t.inputs, settings) for t in demo.test_sets]
    run = demo.runs[0][2]["reports"]
    parsed = task.parse_phase_run(run, "run.txt", all_inputs, settings)
    assert [len(p.alignments) for p in parsed] == [2, 1]
    with pytest.raises(FormatError, match="unknown document 'nowhere'"):
        task.parse_phase_run(
            run + b"# nowhere\n[0]:[0]\n", "run.txt", all_inputs, settings
        )
    with pytest.raises(FormatError, match="no alignment for document 'chapter1'"):
        task.parse_phase_run(
            run.split(b"# chapter1")[0], "run.txt", all_inputs, settings
        )


def test_describe_detail_lists_misaligned_bisegments_side_by_side(
    task: SentenceAlignment,
) -> None:
    demo = task.demo()
    settings = task.parse_settings(demo.settings)
    all_inputs = [task.parse_inputs(t.inputs, settings) for t in demo.test_sets]
    gold = task.parse_gold(demo.test_sets[0].gold, all_inputs[0], settings)
    run = task.parse_phase_run(demo.runs[1][2]["reports"], "r", all_inputs, settings)[0]
    report = task.score(run, gold, all_inputs[0], settings)
    described = task.describe_detail(report.detail, gold, settings)
    rows = described["misaligned bisegments"]
    assert rows and {r["in"] for r in rows} <= {"run only", "gold only"}  # type: ignore[index, union-attr]
    assert all(r["source sentences"] or r["target sentences"] for r in rows)  # type: ignore[index, union-attr]
