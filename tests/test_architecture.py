"""The layers are import-linter contracts (pyproject.toml, docs/architecture.md):
``lint-imports`` runs here, so the one test command and CI fail on a broken one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.paths import REPO_ROOT

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint_imports(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,  # type: ignore[call-overload]
    )


def test_every_import_contract_is_kept():
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def _write_package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_circle_of_modules_breaks_the_build(tmp_path):
    """The contract type import-linter lacks (tests/import_contracts.py) finds a
    circle closed by an import inside a function, and names the lines."""
    _write_package(
        tmp_path,
        {
            "circ/__init__.py": "",
            "circ/jobs.py": "from circ import service\n",
            "circ/service.py": "def run():\n    from circ import jobs\n",
            "circ/free.py": "from circ import service\n",
        },
    )
    config = tmp_path / "contracts.toml"
    config.write_text(
        "[tool.importlinter]\n"
        'root_packages = ["circ"]\n'
        'contract_types = ["no_circles: tests.import_contracts.NoCirclesContract"]\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "No circles"\n'
        'type = "no_circles"\n'
        'packages = ["circ"]\n'
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}
    result = _lint_imports("--config", str(config), env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "A circle of 2 modules" in result.stdout
    assert "circ.service -> circ.jobs (l.2)" in result.stdout
    assert "circ.free" not in result.stdout

    (tmp_path / "circ/service.py").write_text("def run():\n    pass\n")
    result = _lint_imports("--config", str(config), env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_job_is_sent_delayed():
    """A worker holding a delayed job (``countdown``, ``eta``) exits when Redis
    goes away: kombu 5.7 cannot give it back to a broker that closed
    (``AttributeError`` on the closed client, which Celery treats as
    unrecoverable). Work for later is a row in the database that beat sends when
    it is due (``services/boards/refreshes.py``)."""
    import ast

    delayed = [
        f"{path.relative_to(REPO_ROOT)}:{node.lineno}"
        for path in sorted((REPO_ROOT / "evalhub").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Call)
        and {k.arg for k in node.keywords} & {"countdown", "eta"}
    ]
    assert delayed == []


def test_a_process_that_draws_nothing_imports_no_matplotlib():
    """The web processes and commands import the jobs they queue, and so
    ``tasks.common.plotting``; matplotlib is imported by the first figure drawn
    (``plotting._matplotlib``), not at their start."""
    code = (
        "import sys, django; django.setup();"
        " import evalhub.urls, evalhub.wsgi, evalhub.rankings.jobs,"
        " evalhub.competitions.jobs, tasks.common.plotting;"
        " print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "evalhub.settings"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


#: The longest a Python module may be (lines): one that grows past it is split.
MAX_MODULE_LINES = 400


def test_every_module_stays_under_400_lines():
    """Every Python module of the project (the apps, the task types, the tests,
    the benchmarks, the scripts at the top), migrations aside (Django writes them)."""
    folders = ("evalhub", "tasks", "tests", "bench")
    modules = [p for f in folders for p in (REPO_ROOT / f).rglob("*.py")]
    modules += list(REPO_ROOT.glob("*.py"))
    assert len(modules) > 100
    long = {
        str(p.relative_to(REPO_ROOT)): n
        for p in modules
        if "migrations" not in p.parts
        and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these modules (lines): {long}"


def test_a_team_filter_is_declared_in_one_module():
    """Which teams have no final run, no fact sheet, ... is one rule each: the
    recipient filters (``competitions/services/recipients.py``, and those the
    feature apps register), which the messages and the roster both ask. A second
    list of such filters (the roster once kept its own, with its own rules)
    names them again: no module but the one registering a filter may spell its
    key (with hyphens or underscores) or its label."""
    import ast

    from evalhub.competitions.services import recipients

    spelt: dict[str, set[str]] = {}
    for path in sorted((REPO_ROOT / "evalhub").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.strip().casefold().replace("_", "-")
                spelt.setdefault(text, set()).add(str(path.relative_to(REPO_ROOT)))
    found = [f for f in recipients.filters() if f.key != recipients.ALL]
    assert len(found) >= 5
    for f in found:
        modules = spelt.get(f.key, set()) | spelt.get(f.label.casefold(), set())
        assert len(modules) == 1, f"filter {f.key!r} is spelt in {sorted(modules)}"
