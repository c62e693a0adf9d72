"""The task type through the plug-in contract: demo, scoring, plots, registry."""

from __future__ import annotations

from tasks import registry
from tasks.base import RunDetail
from tasks.term_extraction.task import TermExtraction

PNG = b"\x89PNG"


def _score_demo(seed: int = 0):
    tt = TermExtraction()
    demo = tt.demo(seed)
    settings = tt.parse_settings(demo.settings)
    test_set = demo.test_sets[0]
    inputs = tt.parse_inputs(test_set.inputs, settings)
    gold = tt.parse_gold(test_set.gold, inputs, settings)
    reports = []
    for team, _method, files in demo.runs:
        run = tt.parse_run(files[test_set.name], "run.txt", inputs, settings)
        reports.append((team, tt.score(run, gold, inputs, settings)))
    return tt, settings, reports


def test_registry_points_here() -> None:
    assert isinstance(registry.get("term_extraction"), TermExtraction)


def test_demo_is_deterministic_and_small() -> None:
    tt = TermExtraction()
    a, b = tt.demo(0), tt.demo(0)
    assert a == b
    assert tt.demo(1) != a
    assert 2 <= len(a.runs) <= 4
    gold = a.test_sets[0].gold["gold"].decode().splitlines()
    assert 200 <= len(gold) <= 500


def test_demo_runs_differ_in_quality_and_report_is_complete() -> None:
    tt, _settings, reports = _score_demo()
    keys = {m.key for m in tt.metrics}
    for _team, report in reports:
        assert set(report.metrics) == keys
        assert {"clusters", "unmatched_outputs", "unreached_gold"} <= set(report.detail)
    tf = [report.metrics["term_f1"] for _, report in reports]
    assert tf == sorted(tf, reverse=True)
    assert tf[0] - tf[-1] > 0.2
    # The first demo run is ranked: it gets AP and P@k.
    ranked = reports[0][1]
    assert ranked.metrics["average_precision"] is not None
    assert "precision_at_100" in ranked.payload
    assert reports[1][1].metrics["average_precision"] is None


def test_plots_render() -> None:
    tt, settings, reports = _score_demo()
    plots = tt.plots(reports[0][1], settings)
    assert [p.key for p in plots] == ["termometer", "matched", "rank"]
    assert all(p.png.startswith(PNG) and p.svg.startswith(b"<?xml") for p in plots)
    runs = [RunDetail(team, r.detail, r.curves, r.metrics) for team, r in reports]
    board = tt.comparison_plots(runs, settings)
    assert [p.key for p in board] == ["termometer_tp", "termometer_tr", "termometer_tf"]
    assert tt.plots(reports[0][1], settings)[0].svg == plots[0].svg


def test_cap_evaluates_the_first_terms_only() -> None:
    tt = TermExtraction()
    settings = tt.parse_settings({"cap": 2, "ranked": True})
    gold = tt.parse_gold(
        {"gold": b"a\nb\nc\n"}, tt.parse_inputs({}, settings), settings
    )
    run = tt.parse_run(b"a\nx\nb\nc\n", "run.txt", None, settings)  # type: ignore[arg-type]
    report = tt.score(run, gold, None, settings)  # type: ignore[arg-type]
    assert report.payload["n_output"] == 2
    assert report.payload["n_correct"] == 1
    assert any("first 2" in w for w in report.warnings)
    assert report.payload["precision_at_100"] == 0.01


def test_empty_run_scores_zero_and_detail_is_json() -> None:
    import json

    tt = TermExtraction()
    settings = tt.parse_settings({})
    gold = tt.parse_gold({"gold": b"data base\nweb site\n"}, None, settings)  # type: ignore[arg-type]
    empty = tt.score(
        tt.parse_run(b"\n\r\n", "run.txt", None, settings), gold, None, settings
    )  # type: ignore[arg-type]
    assert empty.payload["n_output"] == 0
    assert empty.metrics["term_f1"] == 0.0 and empty.metrics["f1"] == 0.0
    assert empty.payload["n_parts"] == 0
    run = tt.parse_run(
        "\ufeffdata bases\r\nweb  site\r\ntable of content\r\n".encode(),
        "run.txt",
        None,
        settings,  # type: ignore[arg-type]
    )
    report = tt.score(run, gold, None, settings)  # type: ignore[arg-type]
    detail = json.loads(json.dumps(report.detail))
    assert [c["gold"] for c in detail["clusters"]] == ["data base", "web site"]
    assert detail["clusters"][0]["outputs"] == [{"term": "data bases", "distance": 0.1}]
    assert detail["unmatched_outputs"][0]["term"] == "table of content"
    assert detail["unreached_gold"] == []
    json.dumps(report.payload)
    assert report.metrics["term_precision"] == (0.9 + 1.0) / 3
