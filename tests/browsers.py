"""Which Chromium the browser tests drive, and what happens without one.

Debian's ``chromium-headless-shell`` is used when installed (Chromium's engine
built for headless use only, as Playwright runs headless by default: the pages
cost it about half the CPU the full browser spends on them), else Debian's
``chromium``, else the Chromium Playwright downloads itself (``playwright install
chromium``). Without any, the browser tests are skipped with one line that says
how to get one; with ``CI=true`` (as ``.ci/run`` runs) a missing browser fails
them, so CI always runs every browser test.

A test process launches Chromium once (``Shared``) and lends it to each browser
test, which opens contexts of its own (each with its own cookies and storage) and
leaves none behind."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
DEBIAN_HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
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
    "no Chromium for the browser tests: install Debian's (apt-get install"
    " chromium-headless-shell, or chromium)"
    " or Playwright's (.venv/bin/playwright install chromium); with CI=true this fails"
)


class Shared:
    """Playwright and one Chromium for the whole test process, lent to one test
    at a time.

    Playwright's sync API runs its event loop in this thread and marks it as
    running between its calls, so Django takes the thread for an async one
    (``SynchronousOnlyOperation``, connections per async context). The mark is
    only set while a test holds the browser (``lend`` .. ``idle``): the other
    tests, and the database fixtures around a browser test, run in a plain
    synchronous thread, as without a browser."""

    def __init__(self, executable: Path) -> None:
        self.executable = executable
        self._pw = None
        self._browser = None

    def lend(self):  # noqa: ANN201
        """The Chromium (launched on first use, or again if it went away)."""
        if self._pw is None:
            from playwright.sync_api import sync_playwright

            self._pw = sync_playwright().start()
        else:
            asyncio._set_running_loop(self._pw._loop)  # noqa: SLF001
        if self._browser is None or not self._browser.is_connected():
            try:
                self._browser = self._pw.chromium.launch(
                    executable_path=self.executable, args=ARGS
                )
            except BaseException:
                self.idle()
                raise
        return self._browser

    def take_back(self) -> None:
        """Close every context the test opened (its pages, cookies, storage)."""
        if self._browser is not None and self._browser.is_connected():
            for context in list(self._browser.contexts):
                context.close()

    def idle(self) -> None:
        """Until the next ``lend``: no event loop marked running in this thread."""
        asyncio._set_running_loop(None)  # noqa: SLF001

    def close(self) -> None:
        if self._pw is None:
            return
        asyncio._set_running_loop(self._pw._loop)  # noqa: SLF001
        try:
            if self._browser is not None and self._browser.is_connected():
                self._browser.close()
        finally:
            self._pw.stop()
            asyncio._set_running_loop(None)  # noqa: SLF001
            self._pw = self._browser = None


def playwright_chromium() -> Path | None:
    """The Chromium ``playwright install chromium`` downloaded, if it did."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        path = Path(pw.chromium.executable_path)
    return path if path.exists() else None


def find_chromium(
    debian: Path = DEBIAN_CHROMIUM,
    playwright: Callable[[], Path | None] = playwright_chromium,
    shell: Path = DEBIAN_HEADLESS_SHELL,
) -> Path | None:
    """Debian's headless shell if installed, else Debian's Chromium, else
    Playwright's own, else None."""
    if shell.exists():
        return shell
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


def screenshots_wanted(environ: Mapping[str, str] = os.environ) -> bool:
    """$EVALHUB_SCREENSHOTS names a folder to look at: the audits
    (``page_audit``) save a picture of each page they check only then; a
    full-page screenshot costs Chromium a good part of a CPU second."""
    return bool(environ.get("EVALHUB_SCREENSHOTS"))


def screenshot(target, path: Path, **options: object) -> None:  # noqa: ANN001
    """A screenshot of ``target`` (a page or a locator) saved at ``path``, taken only
    when $EVALHUB_SCREENSHOTS names a folder to look at (``screenshots_wanted``):
    nothing reads it otherwise, and each costs Chromium a good part of a CPU
    second (a full page more)."""
    if screenshots_wanted():
        target.screenshot(path=str(path), **options)


def log_in(page, base: str, username: str, password: str) -> None:  # noqa: ANN001
    """Sign ``page`` in through the login form, as a person does (``base``: the
    live server's address), and wait until the header says so."""
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Signed in as").wait_for()
