from __future__ import annotations

import json

import pytest

from tasks import cli, registry
from tasks.base import FormatError, RunDetail, SettingsError
from tasks.mt_lexicon_probe.probes import parse_probes
from tasks.mt_lexicon_probe.tags import JudgementMemory, Tag
from tasks.mt_lexicon_probe.task import Gold, MtLexiconProbe, MtLexiconProbeSettings
from tests.paths import shared_data

SPEC_KEYS = {
    "translated",
    "correct",
    "correct_strict",
    "wrong_determiners",
    "n_items",
    "n_judged",
    "n_pending",
    "auto_tags",
}


def _demo_parts(seed: int = 0):
    tt = MtLexiconProbe()
    demo = tt.demo(seed)
    test_set = demo.test_sets[0]
    settings = tt.parse_settings(demo.settings)
    inputs = tt.parse_inputs(test_set.inputs, settings)
    gold = tt.parse_gold(test_set.gold, inputs, settings)
    runs = {
        method.split()[0]: tt.parse_run(
            files[test_set.name], "run.txt", inputs, settings
        )
        for _, method, files in demo.runs
    }
    return tt, settings, inputs, gold, runs


def test_registry_and_contract():
    tt = registry.get("mt_lexicon_probe")
    assert isinstance(tt, MtLexiconProbe)
    assert tt.primary_metric == "correct_low_mean"
    assert tt.metric("wrong_determiners").higher_is_better is False
    assert (
        tt.parse_settings({"count_proposed_correct": False}).count_proposed_correct
        is False
    )
    with pytest.raises(SettingsError):
        tt.parse_settings({"source_lang": "fr"})


def test_demo_is_deterministic_and_scores():
    tt, settings, inputs, gold, runs = _demo_parts()
    assert tt.demo(0) == tt.demo(0)
    assert 2 <= len(runs) <= 4 and len(inputs) == 27
    assert not inputs.has_references and gold.references
    reports = {
        name: tt.score(run, gold, inputs, settings) for name, run in runs.items()
    }
    for report in reports.values():
        assert SPEC_KEYS <= set(report.payload)
        assert report.payload["n_judged"] + report.payload["n_pending"] == 27
    # the small lexicon copies unknown words: lowest correct share on low frequency
    low = {name: r.metrics["correct_low_mean"] for name, r in reports.items()}
    assert low["small"] == min(low.values())
    assert reports["small"].payload["settled_by"]["auto_u"] > 0


def test_gold_is_optional_and_public_file_has_no_references():
    tt = MtLexiconProbe()
    settings = MtLexiconProbeSettings()
    inputs = tt.parse_inputs({"probes": b"a\tnew\tadj\thigh\tThis is new.\n"}, settings)
    assert tt.parse_gold({}, inputs, settings) == Gold()
    with pytest.raises(FormatError):
        tt.parse_inputs({"probes": b"a\tnew\tadj\thigh\tThis is new.\tneu\n"}, settings)


def test_proposed_correct_kept_apart_from_confirmed():
    tt, settings, inputs, gold, runs = _demo_parts()
    run = runs["wide"]
    auto = tt.score(run, gold, inputs, settings)
    strict = tt.score(
        run, gold, inputs, MtLexiconProbeSettings(count_proposed_correct=False)
    )
    proposed = auto.payload["settled_by"]["proposed_c"]
    assert proposed > 0 and auto.payload["provisional"] is True
    assert strict.payload["n_pending"] == auto.payload["n_pending"] + proposed
    # confirming every proposal turns them into judgements
    confirmed = {
        i["id"]: Tag.CORRECT
        for i in auto.detail["items"]
        if i["source"] == "proposed_c"
    }
    judged = tt.score_judged(run, gold, inputs, settings, confirmed)
    assert judged.payload["settled_by"]["judgement"] == proposed
    assert judged.payload["settled_by"]["proposed_c"] == 0


def test_judgement_memory_reused_across_systems():
    tt, settings, inputs, gold, runs = _demo_parts()
    first, second = runs["wide"], runs["compound"]
    judgements = {p.id: Tag.WRONG for p in inputs.probes}  # an annotator tags system 1
    memory = JudgementMemory.build(
        (p.id, t, judgements[p.id])
        for p, t in zip(inputs.probes, first.translations, strict=True)
    )
    same = sum(
        1
        for a, b in zip(first.translations, second.translations, strict=True)
        if a.casefold() == b.casefold()
    )
    report = tt.score_judged(second, gold, inputs, settings, {}, memory=memory)
    assert report.payload["settled_by"]["memory"] == same > 0


def test_score_judged_warns_on_unknown_ids_and_misplaced_tags():
    tt, settings, inputs, gold, runs = _demo_parts()
    report = tt.score_judged(
        runs["wide"],
        gold,
        inputs,
        settings,
        {"nope": Tag.CORRECT, "adj-high-001": Tag.WRONG_DETERMINER},
    )
    assert any("unknown probe id" in w for w in report.warnings)
    assert any("nouns-only" in w for w in report.warnings)
    assert report.payload["wrong_determiners"] == 0  # table 4 counts nouns only


def test_plots():
    tt, settings, inputs, gold, runs = _demo_parts()
    reports = {n: tt.score(r, gold, inputs, settings) for n, r in runs.items()}
    (plot,) = tt.plots(reports["wide"], settings)
    assert plot.png.startswith(b"\x89PNG") and plot.svg.lstrip().startswith(b"<?xml")
    details = [RunDetail(n, r.detail, r.curves, r.metrics) for n, r in reports.items()]
    keys = [p.key for p in tt.comparison_plots(details, settings)]
    assert keys == [
        "systems_high",
        "systems_medium",
        "systems_low",
        "translated_minus_correct",
        "tables",
    ]
    assert tt.comparison_plots([], settings) == ()


def _build_real(tmp_path, capsys):
    root = shared_data("mt_lexical_coverage", "wiktionary_bli_de_en")
    out = tmp_path / "probes.tsv"
    code = cli.main(
        [
            "probe",
            "build",
            "--columns",
            "de,en",
            "--lang",
            "en",
            "--seed",
            "1",
            "--per-cell",
            "100",
            "--pos-lists",
            f"adj={root / 'de-en.train.Adjective'}",
            f"adj={root / 'de-en.test.Adjective'}",
            f"noun={root / 'de-en.train.Noun'}",
            f"noun={root / 'de-en.test.Noun'}",
            f"verb={root / 'de-en.train.Verb'}",
            f"verb={root / 'de-en.test.Verb'}",
            "--dictionary",
            str(root / "de-en.all"),
            "--out",
            str(out),
            "--public-out",
            str(tmp_path / "public.tsv"),
            "--references-out",
            str(tmp_path / "refs.tsv"),
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    return out, report


def test_cli_build_and_score_on_real_lexicon(tmp_path, capsys):
    out, build = _build_real(tmp_path, capsys)
    assert build["n_probes"] == 900
    assert (build["medium_zipf"], build["low_zipf"]) == (3.15, 1.75)
    assert len(build["bands"]) == 9
    probes = parse_probes(out.read_bytes(), "probes.tsv").probes
    # A system that copies every tenth word and otherwise prints the first reference;
    # each cell holds 100 consecutive probes, so 10 copies per cell.
    lines = []
    for i, p in enumerate(probes):
        word = p.word if i % 10 == 0 else p.references[0]
        lines.append(
            {
                "adj": f"Es ist {word}.",
                "noun": f"Ein {word} ist gut.",
                "verb": f"Wir müssen {word}.",
            }[p.pos]
        )
    run = tmp_path / "run.txt"
    run.write_text("\n".join(lines) + "\n", encoding="utf-8")
    judgements = tmp_path / "j.tsv"
    judgements.write_text(
        f"{probes[1].id}\tw\n{probes[301].id}\twd\n", encoding="utf-8"
    )
    code = cli.main(
        [
            "score",
            "mt_lexicon_probe",
            "--probes",
            str(out),
            "--run",
            str(run),
            "--judgements",
            str(judgements),
            "--json",
        ]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert SPEC_KEYS <= set(payload)
    assert (payload["n_items"], payload["n_judged"], payload["n_pending"]) == (
        900,
        900,
        0,
    )
    assert payload["auto_tags"] == 898
    assert payload["wrong_determiners"] == 1
    assert payload["translated"]["mean"] == {"high": 0.9, "medium": 0.9, "low": 0.9}
    # adj high: 10 u + 1 w of 100 -> correct 0.89; mean (0.89 + 0.9 + 0.9) / 3
    assert payload["correct"]["adj"]["high"] == pytest.approx(0.89)
    assert payload["correct"]["mean"]["high"] == pytest.approx(2.69 / 3)
    assert payload["correct_strict"]["noun"]["high"] == pytest.approx(
        0.9
    )  # wd is positive

    # the public file plus the private references give the same numbers
    code = cli.main(
        [
            "score",
            "mt_lexicon_probe",
            "--probes",
            str(tmp_path / "public.tsv"),
            "--references",
            str(tmp_path / "refs.tsv"),
            "--run",
            str(run),
            "--judgements",
            str(judgements),
            "--json",
        ]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out) == payload


def test_cli_bad_run_reports_counts(tmp_path, capsys):
    probes = tmp_path / "p.tsv"
    probes.write_text(
        "a\tnew\tadj\thigh\tThis is new.\nb\tgood\tadj\thigh\tThis is good.\n",
        encoding="utf-8",
    )
    run = tmp_path / "run.txt"
    run.write_text("Es ist neu.\n", encoding="utf-8")
    code = cli.main(
        [
            "score",
            "mt_lexicon_probe",
            "--probes",
            str(probes),
            "--run",
            str(run),
            "--json",
        ]
    )
    assert code == 2
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert errors[0]["line"] == 2
    assert "1 line(s) but the probe set has 2 probes" in errors[0]["message"]


def test_cli_probe_build_bad_arguments(tmp_path, capsys):
    code = cli.main(
        ["probe", "build", "--pos-lists", "adverb=x", "--out", str(tmp_path / "o.tsv")]
    )
    assert code == 2
    assert "adverb=x" in capsys.readouterr().err
