"""The browser tests' fixtures (a plugin of ``tests/conftest.py``): Chromium driven
by Playwright, a page, where screenshots go; without Chromium a browser test is
skipped before its servers and workers start, folded into one summary line
(tests/browsers.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def screenshots(tmp_path):  # noqa: ANN001, ANN201
    """Where browser tests save screenshots: $EVALHUB_SCREENSHOTS, else tmp_path."""
    import os
    from pathlib import Path

    folder = Path(os.environ.get("EVALHUB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):  # noqa: ANN001, ANN201, ARG001
    report = yield
    from tests import browsers

    browsers.fold(report)
    return report


@pytest.fixture(scope="session")
def chromium_path():  # noqa: ANN201
    """Debian's Chromium, else Playwright's own, else None (tests/browsers.py)."""
    from tests import browsers

    return browsers.find_chromium()


@pytest.fixture(autouse=True)
def _browser_tests_need_chromium(request):  # noqa: ANN001, ANN202
    """Skip a browser test before its servers and workers start when there is no
    Chromium (one folded line in the summary); fail it under CI=true."""
    if "browser" in request.fixturenames:
        if request.getfixturevalue("chromium_path") is None:
            from tests import browsers

            browsers.missing()


@pytest.fixture
def browser(monkeypatch, chromium_path):  # noqa: ANN001, ANN201
    """Chromium driven by Playwright. Request it (or ``page``) last: Playwright's
    sync API runs an event loop in this thread, and the database fixtures must be
    set up before it starts."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    from tests import browsers

    # Teardown of the transactional test database runs while the loop object exists.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path, args=browsers.ARGS)
        yield chromium
        chromium.close()
        # While Playwright's event loop runs in this thread, Django keeps database
        # connections per async context: a query in the test body opened one of
        # its own, which no database fixture closes (it held a session open when
        # the test database was dropped). Close it while that context is current.
        connections.close_all()


@pytest.fixture
def page(browser):  # noqa: ANN001, ANN201
    """A desktop-sized page in the Europe/Paris time zone, 30 s default timeout."""
    context = browser.new_context(
        timezone_id="Europe/Paris", viewport={"width": 1200, "height": 900}
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()
