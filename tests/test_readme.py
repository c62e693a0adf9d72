"""CI runs the README's test command verbatim, and the README's two quick-start
commands install with the same pinned installer. The platform's command writes the
packages' bytecode at install time (``--compile-bytecode``: where
``PYTHONDONTWRITEBYTECODE`` is set, each process ``up`` starts would otherwise
compile its imports from source at every start). The test command does not: uv
would compile all 14,000 modules of the dev extras (29 s of CPU, 21 s before the
first test, ``bench/README.md``), while the test run writes the bytecode of the
modules its processes import, whatever the variable says (``tests/bytecode.py``)."""

from __future__ import annotations

import re

from tests.paths import REPO_ROOT


def _command_after(heading: str) -> str:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(re.escape(heading) + r".*?```sh\n(.+?)\n```", text, re.S)
    assert found, f"no command after {heading!r} in README.md"
    return found.group(1)


def test_ci_runs_the_readmes_test_command_verbatim():
    command = _command_after("**Run the whole test suite:**")
    lines = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in lines


def test_both_commands_install_with_the_same_pinned_installer():
    test = _command_after("**Run the whole test suite:**")
    run = _command_after("**Run the platform with demo tasks**")
    pin = re.search(r"pip install -q (uv==[\d.]+) ", test)
    assert pin and f"pip install -q {pin.group(1)} " in run


def test_the_platform_writes_the_bytecode_at_install_and_the_tests_as_they_import():
    run = _command_after("**Run the platform with demo tasks**")
    assert re.search(r"uv pip install [^&]*--compile-bytecode", run)
    test = _command_after("**Run the whole test suite:**")
    assert "--compile-bytecode" not in test


def test_a_process_the_tests_start_writes_the_bytecode_of_what_it_imports(tmp_path):  # noqa: ANN001
    """Whatever ``PYTHONDONTWRITEBYTECODE`` says where the suite runs: the test run
    took it out of the environment its processes inherit."""
    import importlib.util
    import os
    import subprocess
    import sys

    (tmp_path / "just_imported.py").write_text("VALUE = 1\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-c", "import just_imported"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        check=True,
    )
    cached = importlib.util.cache_from_source(str(tmp_path / "just_imported.py"))
    assert os.path.exists(cached)
