"""The queues each kind of worker consumes are named in one place,
``evalhub/worker_queues.py`` (the settings' ``WORKER_QUEUES``): it covers every queue
a job is routed to, and no other Python module of the project spells a worker's
queue list (a literal after ``-Q``, a literal ``queues=`` argument, or a literal
list such as "scoring,default"): ``manage.py up``, the benchmarks and the tests'
workers all read it. (The Procfile and deploy/compose.yaml, which cannot import it,
are checked against it by ``test_process_layouts.py``.)"""

from __future__ import annotations

import ast
import re

import pytest
from django.conf import settings

from evalhub import worker_queues
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(False)

_LIST = re.compile(r"^[a-z_]+(,[a-z_]+)+$")
_INLINE = re.compile(r"-Q\s+[a-z]")  # a queue list inside a command line


def spelled(source: str) -> list[int]:
    """Lines of ``source`` that spell a worker's queue list themselves."""
    names = set(worker_queues.WORKERS["all"])
    lines = []
    # Each way below needs one of these in the text: a source without any is not
    # parsed.
    if not any(s in source for s in ("-Q", "queues", *(f"{n}," for n in names))):
        return lines
    tree = ast.parse(source)
    # Docstrings (a bare string statement) may name queues in prose.
    prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    for node in ast.walk(tree):
        if id(node) in prose:
            continue
        if isinstance(node, ast.List | ast.Tuple | ast.Call):
            items = node.elts if not isinstance(node, ast.Call) else node.args
            for before, after in zip(items, items[1:], strict=False):
                if (
                    isinstance(before, ast.Constant)
                    and before.value == "-Q"
                    and isinstance(after, ast.Constant)
                ):
                    lines.append(after.lineno)
        if isinstance(node, ast.keyword) and node.arg == "queues":
            if isinstance(node.value, ast.Constant):
                lines.append(node.value.lineno)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if _INLINE.search(text) or (
                _LIST.match(text) and set(text.split(",")) <= names
            ):
                lines.append(node.lineno)
    return sorted(set(lines))


def test_the_scan_finds_each_way_of_spelling_a_queue_list():
    source = (
        '"""A docstring may say: -Q scoring."""\n'
        'argv = ["celery", "worker", "-Q", "scoring", "-c", "1"]\n'
        'cluster.worker("a", queues="default")\n'
        'QUEUES = "scoring,default"\n'
        'cmd = "celery -A evalhub worker -Q scoring -c 1"\n'
        'ok = ["-Q", worker_queues.argument("all")]\n'
        'also_ok = "scoring"\n'
        'read = f"worker -Q {worker_queues.argument(kind)} -c"\n'
    )
    assert spelled(source) == [2, 3, 4, 5]


def test_every_routed_queue_has_its_workers():
    routed = {r["queue"] for r in settings.CELERY_TASK_ROUTES.values()}
    routed.add(settings.CELERY_TASK_DEFAULT_QUEUE)
    assert set(settings.WORKER_QUEUES["all"]) == routed
    assert settings.WORKER_QUEUES is worker_queues.WORKERS
    kinds = set(worker_queues.WORKERS["scoring"]) | set(
        worker_queues.WORKERS["default"]
    )
    assert kinds == routed


def test_no_module_spells_a_worker_queue_list():
    own = REPO_ROOT / "evalhub" / "worker_queues.py"
    this = REPO_ROOT / "tests" / "deploy" / "test_worker_queues.py"
    found = {}
    for folder in ("evalhub", "bench", "tests"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            if path in (own, this) or "migrations" in path.parts:
                continue
            lines = spelled(path.read_text(encoding="utf-8"))
            if lines:
                found[str(path.relative_to(REPO_ROOT))] = lines
    assert not found, found
