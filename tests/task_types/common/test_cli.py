"""``evalhub score`` / ``evalhub compare`` as a user meets them: errors name the
option and the path, blank gold and inputs are rejected, broken pipes end quietly,
``--version``, ``--ci``, ``--plots``, and nothing heavy is imported at start."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from tasks import cli

ROOT = Path(__file__).resolve().parents[3]


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main(args)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def bitext(tmp_path: Path) -> dict[str, Path]:
    files = {
        "src": "Ein Satz.\nZwei Sätze.\nDrei.\n",
        "tgt": "Une phrase.\nDeux phrases.\nTrois.\n",
        "gold": "[0]:[0]\n[1]:[1]\n[2]:[2]\n",
        "run": "[0]:[0]\n[1, 2]:[1, 2]\n",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / f"doc.{name}"
        paths[name].write_text(text, encoding="utf-8")
    return paths


def _sa(p: dict[str, Path], **override: Path) -> list[str]:
    p = {**p, **override}
    return [
        "score", "sentence_alignment", "--source", str(p["src"]), "--target",
        str(p["tgt"]), "--gold", str(p["gold"]), "--run", str(p["run"]),
    ]  # fmt: skip


def test_a_bad_run_line_names_the_option_and_the_full_path(bitext, tmp_path):
    bad = tmp_path / "r" / "001.align"
    bad.parent.mkdir()
    bad.write_text("[0]:[0]\n[1]:[1]\nnot an alignment\n", encoding="utf-8")
    code, _, err = _run(_sa(bitext, run=bad))
    assert code == 2
    assert f"error: --run {bad}, line 3: " in err


def test_a_directory_is_a_clear_error(bitext, tmp_path):
    code, _, err = _run(_sa(bitext, gold=tmp_path))
    assert code == 2
    assert f"error: --gold {tmp_path}: is a directory, not a file" in err


def test_a_missing_file_is_named(bitext, tmp_path):
    code, _, err = _run(
        _sa(bitext, source=tmp_path / "nope.txt", src=tmp_path / "nope.txt")
    )
    assert code == 2
    assert f"--source {tmp_path / 'nope.txt'}: no such file" in err


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf\r\n"])
def test_blank_gold_and_inputs_are_rejected(bitext, tmp_path, content):
    blank = tmp_path / "blank.txt"
    blank.write_bytes(content)
    for key, option in (("gold", "--gold"), ("src", "--source")):
        code, out, err = _run(_sa(bitext, **{key: blank}) + ["--json"])
        assert code == 2
        body = json.loads(out)
        assert body["errors"][0]["file"] == f"{option} {blank}"
        assert (
            "empty" in body["errors"][0]["message"]
            or "blank" in (body["errors"][0]["message"])
        )


def test_blank_term_gold_is_rejected(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("\n \n", encoding="utf-8")
    run = tmp_path / "run.txt"
    run.write_text("a term\n", encoding="utf-8")
    code, _, err = _run(
        ["score", "term_extraction", "--gold", str(gold), "--run", str(run)]
    )
    assert code == 2
    assert f"--gold {gold}: has only blank lines" in err


def test_version():
    code, out, _ = _run(["--version"])
    assert code == 0
    assert out.startswith("evalhub ")


def test_ci_is_the_platforms_interval(tmp_path):
    from tasks import registry
    from tasks.common import resampling as rs

    gold = tmp_path / "gold.txt"
    gold.write_text("data base\nweb site\nterm extraction\nrelational data\n")
    run = tmp_path / "run.txt"
    run.write_text("data bases\nweb site\nterm\nnoise\n")
    args = ["score", "term_extraction", "--gold", str(gold), "--run", str(run)]
    code, out, _ = _run([*args, "--json", "--ci"])
    assert code == 0
    ci = json.loads(out)["ci"]
    # Recomputed from the report's per-item statistics as the platform does.
    task_type = registry.get("term_extraction")
    report = task_type.cli_score(cli.build_parser(args).parse_args(args))
    (expected,) = rs.bootstrap_intervals([task_type.item_statistics(report)])
    assert ci == {"metric": task_type.primary_metric, **expected.to_json()}
    assert ci["samples"] == 1000 and ci["seed"] == 0
    code, out, _ = _run([*args, "--ci", "--samples", "50", "--seed", "3"])
    assert f"{expected.value:.4f} ± " in out and "50 samples, seed 3" in out


def test_ci_is_null_with_one_gold_item(bitext):
    # One document is one item: the platform shows no interval either.
    code, out, _ = _run(_sa(bitext) + ["--json", "--ci"])
    assert code == 0
    assert json.loads(out)["ci"] is None


def test_plots_writes_svg_png_and_pdf(tmp_path):
    from tasks import registry

    demo = registry.get("bilingual_term_alignment").demo(seed=0)
    ts = demo.test_sets[0]
    for role, data in {**ts.inputs, **ts.gold}.items():
        (tmp_path / role).write_bytes(data)
    (tmp_path / "run").write_bytes(demo.runs[0][2]["test"])
    out_dir = tmp_path / "figs"
    code, out, _ = _run([
        "score", "bilingual_term_alignment", "--gold", str(tmp_path / "gold"),
        "--run", str(tmp_path / "run"), "--source-terms", str(tmp_path / "source_terms"),
        "--target-terms", str(tmp_path / "target_terms"), "--plots", str(out_dir),
    ])  # fmt: skip
    assert code == 0
    names = {p.name for p in out_dir.iterdir()}
    keys = {n.rsplit(".", 1)[0] for n in names}
    assert keys, names
    for key in keys:
        assert {f"{key}.svg", f"{key}.png", f"{key}.pdf"} <= names
    # Linear and log x, as on the run page.
    assert any(k.endswith("_log") or "log" in k for k in keys)
    assert (out_dir / f"{sorted(keys)[0]}.pdf").read_bytes().startswith(b"%PDF")


def _subprocess(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True
    )


def test_scoring_imports_only_the_chosen_task_type(bitext):
    args = _sa(bitext) + ["--json"]
    proc = _subprocess(
        "import sys\n"
        "from evalhub.cli import main\n"
        f"code = main({args!r})\n"
        "heavy = [m for m in ('django', 'celery', 'matplotlib', 'scipy', "
        "'tasks.term_extraction', 'tasks.bilingual_term_alignment', "
        "'tasks.mt_lexicon_probe', 'zipfile', 'shutil') if m in sys.modules]\n"
        "print('HEAVY', heavy, code, file=sys.stderr)\n"
    )
    assert "HEAVY [] 0" in proc.stderr, proc.stderr


def test_the_console_script_spares_the_final_collection(bitext):
    # run() is the console script: the whole output is written, the status is
    # main's, and every object is frozen so the exit does not scan them again.
    proc = _subprocess(
        "import gc, sys\n"
        "from evalhub.cli import run\n"
        f"sys.argv[1:] = {_sa(bitext) + ['--json']!r}\n"
        "try:\n"
        "    run()\n"
        "except SystemExit as exc:\n"
        "    print('EXIT', exc.code, gc.get_freeze_count() > 0, file=sys.stderr)\n"
    )
    assert "EXIT 0 True" in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)["alignment"]["f1"] >= 0


def test_a_broken_pipe_ends_quietly(bitext):
    # The reader goes away before the scorer writes (as `| head` does mid-output).
    proc = subprocess.Popen(
        [sys.executable, "-m", "evalhub.cli", *_sa(bitext), "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait() == 141
    assert stderr == ""


def test_help_needs_no_task_module():
    from tasks.sentence_alignment import cli_args, metrics

    assert cli_args.ARCADE_LEVELS == metrics.ARCADE_LEVELS
    proc = _subprocess(
        "import sys\n"
        "from evalhub.cli import main\n"
        "try:\n"
        "    main(['score', 'sentence_alignment', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('HEAVY', [m for m in ('numpy', 'tasks.sentence_alignment.task') "
        "if m in sys.modules], file=sys.stderr)\n"
    )
    assert "--primary-granularity" in proc.stdout
    assert "HEAVY []" in proc.stderr, proc.stderr


def test_help_is_as_wide_as_the_terminal(monkeypatch, capsys):
    """argparse's width without shutil: the width shutil.get_terminal_size gives
    ($COLUMNS, else the terminal, else 80), and help wrapped to it."""
    import shutil

    from tasks import cli

    for columns in ("50", "120", "0", "x", None):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        assert cli._columns() == shutil.get_terminal_size().columns
    widths = []
    for columns in ("60", "160"):
        monkeypatch.setenv("COLUMNS", columns)
        with pytest.raises(SystemExit):
            cli.main(["score", "sentence_alignment", "--help"])
        widths.append(max(map(len, capsys.readouterr().out.splitlines())))
    assert widths[0] < widths[1] <= 158
