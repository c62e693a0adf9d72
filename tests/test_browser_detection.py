"""The browser tests' Chromium: Debian's headless shell first, else Debian's
Chromium, else Playwright's own; without one they are skipped with how to get one,
and fail under CI=true (tests/browsers.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests import browsers
from tests.paths import REPO_ROOT


def test_debian_headless_shell_comes_first(tmp_path):  # noqa: ANN001
    debian, shell = tmp_path / "chromium", tmp_path / "chromium-headless-shell"
    debian.write_bytes(b"")
    shell.write_bytes(b"")
    asked = []
    found = browsers.find_chromium(
        debian, lambda: asked.append(1) or tmp_path, shell=shell
    )
    assert (found, asked) == (shell, [])


def test_debian_chromium_without_the_shell(tmp_path):  # noqa: ANN001
    debian = tmp_path / "chromium"
    debian.write_bytes(b"")
    asked = []
    found = browsers.find_chromium(
        debian, lambda: asked.append(1) or tmp_path, shell=tmp_path / "no-shell"
    )
    assert (found, asked) == (debian, [])


def test_playwright_chromium_when_debian_has_none(tmp_path):  # noqa: ANN001
    bundled = tmp_path / "chrome-linux" / "chrome"
    none, no_shell = tmp_path / "none", tmp_path / "no-shell"
    assert browsers.find_chromium(none, lambda: bundled, shell=no_shell) == bundled
    assert browsers.find_chromium(none, lambda: None, shell=no_shell) is None


@pytest.mark.parametrize(
    ("ci", "required"),
    [("true", True), ("1", True), ("TRUE", True), ("", False), ("false", False)],
)
def test_ci_requires_the_browser(ci, required):  # noqa: ANN001
    assert browsers.required({"CI": ci}) is required
    assert browsers.required({}) is False


def test_without_chromium_skipped_with_how_to_get_it_failed_under_ci():
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        browsers.missing({})
    with pytest.raises(pytest.fail.Exception, match="playwright install chromium"):
        browsers.missing({"CI": "true"})


def test_a_fresh_machine_skips_the_browser_tests_with_one_line(tmp_path):  # noqa: ANN001
    """No Chromium anywhere: the browser tests are skipped before their fixtures
    run, folded into one summary line; with CI=true they fail the run. Runs the
    project's own fixtures (tests/browser_fixtures.py) in a separate pytest."""
    (tmp_path / "conftest.py").write_text(
        "import pytest\n"
        "from tests.browser_fixtures import (  # noqa\n"
        "    _browser_tests_need_chromium, browser, pytest_runtest_makereport)\n"
        "@pytest.fixture(scope='session')\n"
        "def chromium_path():\n"
        "    from tests import browsers\n"
        "    none = browsers.DEBIAN_CHROMIUM.with_name('no-such-chromium')\n"
        "    return browsers.find_chromium(none, lambda: None, shell=none)\n"
    )
    (tmp_path / "test_b.py").write_text(
        "def test_a(browser): pass\ndef test_b(browser): pass\ndef test_c(): pass\n"
    )

    def run(**env: str) -> subprocess.CompletedProcess[str]:
        environ = {k: v for k, v in os.environ.items() if k != "CI"}
        cmd = [sys.executable, "-m", "pytest", "-ra", "-p", "no:django",
               "-p", "no:xdist", "-p", "no:cacheprovider", str(tmp_path)]  # fmt: skip
        return subprocess.run(
            cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120,
            env={**environ, "PYTHONPATH": str(REPO_ROOT), **env},
        )  # fmt: skip

    fresh = run()
    assert fresh.returncode == 0, fresh.stdout
    assert "1 passed, 2 skipped" in fresh.stdout
    skipped = [line for line in fresh.stdout.splitlines() if "SKIPPED" in line]
    assert len(skipped) == 1 and "SKIPPED [2]" in skipped[0], fresh.stdout
    assert "apt-get install chromium" in skipped[0]
    ci = run(CI="true")
    assert ci.returncode == 1, ci.stdout
    assert "1 passed, 2 errors" in ci.stdout
