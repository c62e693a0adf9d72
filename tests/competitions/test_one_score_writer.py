"""Scores are written by the run's lifecycle only (issue 41, item 4): every module of
``evalhub/`` is parsed, and a write of a score row (``Evaluation``, ``Score``,
``ScoreSnapshot``, ``Artefact``) anywhere but ``runs/evaluations.py`` fails, as does
an import of that module anywhere but ``runs/lifecycle.py`` (which calls it under
the phase's lock, after checking that the data the scores rest on is current). The
status writes have the same check in ``test_run_lifecycle.py``. On main the scoring
job and the annotations app wrote scores themselves (``store_evaluation``).

(An archive import loads a new task's rows as the archive recorded them, through
Django's deserializer: that is not a score computed here, and no call names them.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRITER = ROOT / "evalhub/competitions/services/runs/evaluations.py"
OWNER = ROOT / "evalhub/competitions/services/runs/lifecycle.py"

_MODELS = ("Evaluation", "Score", "ScoreSnapshot", "Artefact")
#: A score model or a related manager of one.
_NAMED = re.compile(
    r"\b(Evaluation|Score|ScoreSnapshot|Artefact)\b"
    r"|\.(evaluations|scores|score_snapshots|artefacts)\b"
)
_WRITES = (
    "create",
    "get_or_create",
    "update_or_create",
    "bulk_create",
    "bulk_update",
    "update",
    "delete",
    "save",
)


def _imports_score_models(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("evalhub.competitions.models")
        and any(a.name in _MODELS for a in node.names)
        for node in ast.walk(tree)
    )


def score_writes(source: str) -> list[int]:
    """Lines of ``source`` that write a score row: a constructor call of a score
    model, or a write method called on one (its manager, a queryset, a related
    manager, a row), in a module that imports a score model."""
    tree = ast.parse(source)
    if not _imports_score_models(tree):
        return []
    rows = _bound_to_score_rows(tree)
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in _MODELS:
            lines.append(node.lineno)
        elif isinstance(func, ast.Attribute) and func.attr in _WRITES:
            owner = ast.unparse(func.value)
            if _NAMED.search(owner) or owner.split(".")[0] in rows:
                lines.append(node.lineno)
    return sorted(set(lines))


def _bound_to_score_rows(tree: ast.AST) -> set[str]:
    """Names bound to score rows: assigned from, or looping over, an expression that
    names a score model, or a parameter annotated with one."""
    names: set[str] = set()

    def bind(target: ast.AST) -> None:
        names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _NAMED.search(ast.unparse(node.value)):
            for target in node.targets:
                bind(target)
        elif isinstance(node, ast.For) and _NAMED.search(ast.unparse(node.iter)):
            bind(node.target)
        elif isinstance(node, ast.arg) and node.annotation is not None:
            if _NAMED.search(ast.unparse(node.annotation)):
                names.add(node.arg)
    return names


def imports_the_writer(source: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.endswith("services.runs.evaluations") or (
                module.endswith("services.runs")
                and any(a.name == "evaluations" for a in node.names)
            ):
                return True
        elif isinstance(node, ast.Import) and any(
            a.name.endswith("services.runs.evaluations") for a in node.names
        ):
            return True
    return False


def _modules() -> list[Path]:
    return [
        p
        for p in sorted((ROOT / "evalhub").rglob("*.py"))
        if "migrations" not in p.parts
    ]


def test_the_scan_finds_each_way_of_writing_a_score():
    """The checks below can fail: they find each way of writing a score row."""
    source = (
        "from evalhub.competitions.models import Evaluation, Score\n"
        "Evaluation.objects.update_or_create(submission=s, test_set=t)\n"
        "Score.objects.filter(test_set=t).delete()\n"
        "Score(submission=s, metric='ap', value=1.0)\n"
        "sub.evaluations.create(test_set=t)\n"
        "evaluation = Evaluation.objects.get(pk=1)\n"
        "evaluation.delete()\n"
        "for artefact in sub.artefacts.all():\n"
        "    artefact.save()\n"
        "Evaluation.objects.filter(pk=1).update(payload={})\n"
    )
    assert score_writes(source) == [2, 3, 4, 5, 7, 9, 10]
    reads = (
        "from evalhub.competitions.models import Evaluation, TaskArtefact\n"
        "Evaluation.objects.filter(test_set=t).values_list('pk')\n"
        "TaskArtefact.objects.get_or_create(task=t)\n"
        "ScoreReport(metrics={})\n"
        "values.update(x=1)\n"
        "artefact = TaskArtefact.objects.get(pk=1)\n"
        "artefact.save()\n"
    )
    assert score_writes(reads) == []
    assert imports_the_writer(
        "from evalhub.competitions.services.runs import evaluations"
    )
    assert imports_the_writer(
        "from evalhub.competitions.services.runs.evaluations import withdraw"
    )
    assert not imports_the_writer(
        "from evalhub.competitions.services.runs import lifecycle"
    )


def test_only_the_lifecycle_writes_scores():
    found = {
        str(path.relative_to(ROOT)): lines
        for path in _modules()
        if path != WRITER and (lines := score_writes(path.read_text()))
    }
    assert found == {}
    assert score_writes(WRITER.read_text()) != []
    callers = [
        str(path.relative_to(ROOT))
        for path in _modules()
        if imports_the_writer(path.read_text())
    ]
    assert callers == [str(OWNER.relative_to(ROOT))]
