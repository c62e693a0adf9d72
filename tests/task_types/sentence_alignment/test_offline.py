"""``evalhub score sentence_alignment --documents``: a test set of several documents
scored at once, counts summed over its documents as the platform sums them, with
the run file that covers every test set of the phase; the one-document contract
(``--source``/``--target``) stays as it was, and mixing the two is refused."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from tasks import cli, registry
from tests.task_types.sentence_alignment.helpers import make_zip

SRC = "Ein Satz.\nZwei Sätze.\nDrei.\n"
TGT = "Une phrase.\nDeux phrases.\nTrois.\n"


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main(args)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A test set of documents a and b; the run also holds c (another test set's)."""
    written = {
        "documents": make_zip({"a.src": SRC, "a.tgt": TGT, "b.src": SRC, "b.tgt": TGT}),
        "gold": make_zip(
            {"a.align": "[0]:[0]\n[1]:[1]\n[2]:[2]\n", "b.align": "[0, 1]:[0, 1]\n"}
        ),
        "run": b"# a\n[0]:[0]\n[1, 2]:[1, 2]\n# c\n[0]:[0]\n# b\n[0]:[0]\n[1]:[1]\n",
        "src": SRC.encode(),
        "tgt": TGT.encode(),
    }
    paths = {}
    for name, data in written.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(data)
    return paths


def _platform(files: dict[str, Path]) -> dict[str, float | None]:
    """The scores the platform stores: the phase's run parsed for this test set
    (document c is the other test set's) and scored."""
    task_type = registry.get("sentence_alignment")
    settings = task_type.parse_settings({})
    inputs = task_type.parse_inputs(
        {"documents": files["documents"].read_bytes()}, settings
    )
    other = task_type.parse_inputs(
        {"documents": make_zip({"c.src": SRC, "c.tgt": TGT})}, settings
    )
    gold = task_type.parse_gold({"gold": files["gold"].read_bytes()}, inputs, settings)
    run, _ = task_type.parse_phase_run(
        files["run"].read_bytes(), "run.txt", [inputs, other], settings
    )
    return dict(task_type.score(run, gold, inputs, settings).metrics)


def test_a_test_set_of_several_documents_gives_the_platform_numbers(files):
    args = ["score", "sentence_alignment", "--documents", str(files["documents"])]
    args += ["--gold", str(files["gold"]), "--run", str(files["run"])]
    code, out, _ = _run([*args, "--json"])
    assert code == 2 and "unknown document 'c'" in out  # another test set's
    code, out, err = _run([*args, "--ignore-other-documents", "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert sorted(report["documents"]) == ["a", "b"]
    platform = _platform(files)
    for key, value in platform.items():
        level, _, stat = key.rpartition("_")
        offline = report[key] if key in report else report[level][stat]
        assert offline == value, key
    # Counts summed over both documents (micro), not one document's.
    a, b = report["documents"]["a"]["sentence"], report["documents"]["b"]["sentence"]
    assert report["sentence"]["correct"] == a["correct"] + b["correct"]


def test_the_one_document_contract_is_unchanged(files, tmp_path):
    gold = tmp_path / "one.align"
    gold.write_text("[0]:[0]\n[1]:[1]\n[2]:[2]\n", encoding="utf-8")
    run = tmp_path / "one.run"
    run.write_text("[0]:[0]\n[1, 2]:[1, 2]\n", encoding="utf-8")
    code, out, _ = _run(
        ["score", "sentence_alignment", "--source", str(files["src"]),
         "--target", str(files["tgt"]), "--gold", str(gold), "--run", str(run),
         "--json"]
    )  # fmt: skip
    assert code == 0
    report = json.loads(out)
    assert report["alignment"]["correct"] == 1 and report["sentence"]["proposed"] == 5


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--source", "S", "--target", "T", "--documents", "D"], "one or the other"),
        ([], "give --source and --target"),
        (["--source", "S"], "give --source and --target"),
        (
            ["--source", "S", "--target", "T", "--ignore-other-documents"],
            "goes with --documents",
        ),
    ],
)
def test_inputs_are_one_document_or_a_test_set(extra, message):
    code, _, err = _run(
        ["score", "sentence_alignment", "--gold", "G", "--run", "R", *extra]
    )
    assert code == 2 and message in err
