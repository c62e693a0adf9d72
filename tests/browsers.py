"""Which Chromium the browser tests drive, and what happens without one.

Debian's ``chromium`` is used when installed, else the Chromium Playwright downloads
itself (``playwright install chromium``). Without either, the browser tests are
skipped with one line that says how to get one; with ``CI=true`` (as ``.ci/run``
runs) a missing browser fails them, so CI always runs every browser test."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MISSING = (
    "no Chromium for the browser tests: install Debian's (apt-get install chromium)"
    " or Playwright's (.venv/bin/playwright install chromium); with CI=true this fails"
)


def playwright_chromium() -> Path | None:
    """The Chromium ``playwright install chromium`` downloaded, if it did."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        path = Path(pw.chromium.executable_path)
    return path if path.exists() else None


def find_chromium(
    debian: Path = DEBIAN_CHROMIUM,
    playwright: Callable[[], Path | None] = playwright_chromium,
) -> Path | None:
    """Debian's Chromium if installed, else Playwright's own, else None."""
    if debian.exists():
        return debian
    return playwright()


def required(environ: Mapping[str, str] = os.environ) -> bool:
    """CI runners set ``CI=true``: there the browser tests must run."""
    return environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing(environ: Mapping[str, str] = os.environ) -> None:
    """No Chromium: skip the test, or fail it where browsers are required."""
    if required(environ):
        pytest.fail(MISSING, pytrace=False)
    pytest.skip(MISSING)


def fold(report: pytest.TestReport) -> None:
    """Report every skip for want of a browser at one place, so ``-ra`` shows them
    as one line (``SKIPPED [11] ...``) instead of one per test."""
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and MISSING in longrepr[2]:
        report.longrepr = (__file__, 1, longrepr[2])


def log_in(page, base: str, username: str, password: str) -> None:  # noqa: ANN001
    """Sign ``page`` in through the login form, as a person does (``base``: the
    live server's address), and wait until the header says so."""
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Signed in as").wait_for()
