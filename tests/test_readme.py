"""CI runs the README's test command verbatim, and the README's two quick-start
commands install with the same pinned installer, writing the packages' bytecode at
install time (``--compile-bytecode``: where ``PYTHONDONTWRITEBYTECODE`` is set, every
process would otherwise compile its imports from source at each start)."""

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


def test_both_commands_write_the_bytecode_at_install():
    for heading in (
        "**Run the whole test suite:**",
        "**Run the platform with demo tasks**",
    ):
        command = _command_after(heading)
        assert re.search(r"uv pip install [^&]*--compile-bytecode", command), heading
