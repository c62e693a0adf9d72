"""The task type end to end: report, curves, detail, plots, bins, demo, CLI."""

from __future__ import annotations

import json

import pytest

from tasks import cli, registry
from tasks.base import RunDetail
from tests.paths import shared_data

TT = registry.get("bilingual_term_alignment")
SETTINGS = TT.parse_settings({})
INPUTS = TT.parse_inputs(
    {"source_terms": b"a\nb\nc\n", "target_terms": b"x\ny\nz\nw\n"}, SETTINGS
)
GOLD = TT.parse_gold({"gold": b"a\tx\na\ty\nb\tz\n"}, INPUTS, SETTINGS)


def report_for(data: bytes):
    return TT.score(
        TT.parse_run(data, "run.tsv", INPUTS, SETTINGS), GOLD, INPUTS, SETTINGS
    )


def test_class_attributes():
    assert TT.primary_metric == "ap"
    assert [r.key for r in TT.input_roles] == ["source_terms", "target_terms"]
    assert [r.key for r in TT.gold_roles] == ["gold"] and TT.gold_roles[0].private
    assert TT.submission_role.key == "run"
    s = TT.parse_settings({"cap_policy": "truncate", "cap_factor": 3})
    assert (s.cap_policy, s.cap_factor) == ("truncate", 3.0)


def test_report_has_every_metric_and_payload_key():
    report = report_for(b"a\tw\na\tx\nb\tz\nc\tw\n")
    assert set(report.metrics) == {m.key for m in TT.metrics}
    for key in (
        "ap", "ap_interpolated", "n_sys", "n_gold", "tp", "fp", "fn", "precision",
        "recall", "f1", "n_oov", "n_duplicates", "p_at_100", "p_at_1000", "map_source",
    ):  # fmt: skip
        assert key in report.payload
    assert report.payload["ap"] == pytest.approx((1 / 2 + 2 / 3) / 3)
    json.dumps(report.payload)
    json.dumps(report.detail)


def test_detail_ranks_and_wrong_candidates():
    report = report_for(b"a\tw\na\tx\nb\tz\nc\tw\na\tz\n")
    # sorted gold: (a,x), (a,y), (b,z)
    assert report.detail["gold_ranks"] == [2, -1, 3]
    # c has no gold translation: not listed
    assert report.detail["wrong_candidates"] == {"a": [["w", 1], ["z", 5]]}


def test_curves_small_and_exact_at_the_end():
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    inputs = TT.parse_inputs(
        {
            "source_terms": (base / "source_terms.txt").read_bytes(),
            "target_terms": (base / "target_terms.txt").read_bytes(),
        },
        SETTINGS,
    )
    gold = TT.parse_gold({"gold": (base / "gold.tsv").read_bytes()}, inputs, SETTINGS)
    run = TT.parse_run(
        (base / "runs" / "long_tail.tsv").read_bytes(), "r", inputs, SETTINGS
    )
    report = TT.score(run, gold, inputs, SETTINGS)
    curves = {c.key: c for c in report.curves}
    assert set(curves) == {"prf", "prf_log", "ap"}
    assert curves["prf_log"].log_x and not curves["prf"].log_x
    for curve in curves.values():
        assert len(curve.x) <= 401
        assert curve.x[0] == 1.0 and curve.x[-1] == 48500.0
    series = dict(curves["prf"].series)
    assert series["precision"][-1] == pytest.approx(
        report.payload["precision"], abs=1e-12
    )
    assert series["recall"][-1] == pytest.approx(report.payload["recall"], abs=1e-12)
    assert series["F1"][-1] == pytest.approx(report.payload["f1"], abs=1e-12)
    assert curves["ap"].series[0][1][-1] == pytest.approx(
        report.payload["ap"], abs=1e-12
    )


def test_empty_run_has_no_curves_and_zero_scores():
    report = report_for(b"")
    assert report.curves == ()
    assert report.metrics["ap"] == 0.0 and report.payload["fn"] == 3


def test_plots_render():
    report = report_for(b"a\tw\na\tx\nb\tz\nc\tw\n")
    plots = TT.plots(report, SETTINGS)
    assert [p.key for p in plots] == ["prf", "prf_log", "ap"]
    assert all(
        p.svg.startswith(b"<?xml") and p.png.startswith(b"\x89PNG") for p in plots
    )
    runs = [
        RunDetail("r1", report.detail, report.curves, report.metrics),
        RunDetail("r2", report.detail, report.curves, report.metrics),
    ]
    assert TT.comparison_plots(runs, SETTINGS)


def test_difficulty_bins_by_hand():
    r1 = report_for(b"a\tx\nb\tz\na\tw\n")  # finds (a,x), (b,z)
    r2 = report_for(b"b\tz\nb\tx\na\tz\n")  # finds (b,z)
    r3 = report_for(b"c\tw\nb\tw\na\tw\n")  # finds nothing
    runs = [
        RunDetail("r1", r1.detail, r1.curves, r1.metrics),
        RunDetail("r2", r2.detail, r2.curves, r2.metrics),
        RunDetail("r3", r3.detail, r3.curves, r3.metrics),
        RunDetail("stale", {"gold_ranks": [1]}, (), {}),
    ]
    result = TT.analyse(runs, GOLD, SETTINGS)
    assert result is not None
    bins = result.public["bins"]
    assert [b["size"] for b in bins] == [1, 1, 1, 0]
    assert bins[0]["percent"] == pytest.approx(100 / 3)
    # Runs as columns: how many pairs of each bin r1, r2, r3 retrieved.
    assert result.public["runs"] == ["r1", "r2", "r3"]
    assert [b["found"] for b in bins] == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0]]
    # A run off the public board counts in the bins but has no column.
    off = [runs[0], RunDetail("r2", r2.detail, r2.curves, r2.metrics, shown=False)]
    partial = TT.analyse([*off, runs[2]], GOLD, SETTINGS)
    assert partial is not None and partial.public["columns"] == ["r1", "r3"]
    assert [b["size"] for b in partial.public["bins"]] == [1, 1, 1, 0]
    assert [b["found"] for b in partial.public["bins"]] == [
        [0, 0],
        [1, 0],
        [1, 0],
        [0, 0],
    ]
    assert result.public["skipped_runs"] == ["stale"]
    members = result.private["bins"]
    assert members[0]["members"] == [
        {
            "source": "a",
            "target": "y",
            "found_by": [],
            "wrong_candidates": [
                {"target": "w", "best_rank": 3, "runs": ["r1", "r3"]},
                {"target": "z", "best_rank": 3, "runs": ["r2"]},
            ],
        }
    ]
    assert members[2]["members"][0]["found_by"] == ["r1", "r2"]
    assert [p.key for p in result.plots] == ["difficulty_bins"]
    # bins are public: they never name gold pairs
    assert "y" not in json.dumps(result.public)


def test_demo_is_deterministic_and_runs_differ_in_quality():
    demo = TT.demo(0)
    assert demo == TT.demo(0)
    assert demo != TT.demo(1)
    (test_set,) = demo.test_sets
    settings = TT.parse_settings(demo.settings)
    inputs = TT.parse_inputs(test_set.inputs, settings)
    gold = TT.parse_gold(test_set.gold, inputs, settings)
    assert 200 <= len(gold.pairs) <= 400
    aps = []
    for _team, _method, files in demo.runs:
        run = TT.parse_run(files[test_set.name], "run.tsv", inputs, settings)
        assert run.n_oov == 0 and run.n_duplicates == 0
        aps.append(TT.score(run, gold, inputs, settings).metrics["ap"])
    assert len(aps) == 3
    assert aps[0] > 0.6 > aps[1] > aps[2]


def _cli_args(run: str, *extra: str) -> list[str]:
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    return [
        "score", "bilingual_term_alignment",
        "--gold", str(base / "gold.tsv"),
        "--run", str(base / "runs" / run),
        "--source-terms", str(base / "source_terms.txt"),
        "--target-terms", str(base / "target_terms.txt"),
        "--json", *extra,
    ]  # fmt: skip


def test_cli_on_real_messy_run(capsys):
    assert cli.main(_cli_args("messy.tsv")) == 0
    out = json.loads(capsys.readouterr().out)
    # official scorer (-i) on cognates.tsv, which messy.tsv cleans to
    assert out["ap"] == pytest.approx(0.049584698827213836, abs=1e-9)
    assert out["ap_interpolated"] == pytest.approx(0.05153416091529075, abs=1e-9)
    assert (out["n_sys"], out["n_gold"], out["tp"], out["fp"], out["fn"]) == (
        14550, 2884, 346, 14204, 2538,
    )  # fmt: skip
    assert (out["n_oov"], out["n_duplicates"]) == (200, 50)
    assert out["p_at_100"] == 0.82 and out["p_at_1000"] == 0.215
    assert out["map_source"] == pytest.approx(0.12164948453608247, abs=1e-9)


def test_cli_rejects_over_cap_with_exit_2(capsys):
    args = _cli_args("long_tail.tsv", "--cap-factor", "1")
    assert cli.main(args) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["n_errors"] == 1 and "limit of 6,085" in out["errors"][0]["message"]
    assert (
        cli.main(
            _cli_args("long_tail.tsv", "--cap-factor", "1", "--cap-policy", "truncate")
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["n_sys"] == 6085


def test_cli_rejects_bad_lines_with_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"aberrant\taberrant\nno-tab\nall\tall\t0.5\n")
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    args = _cli_args("cognates.tsv")
    args[args.index("--run") + 1] = str(bad)
    assert cli.main(args) == 2
    out = json.loads(capsys.readouterr().out)
    assert [e["line"] for e in out["errors"]] == [2, 3]
    assert base.name == "test"
