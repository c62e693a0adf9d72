"""The browser tests' fixtures (a plugin of ``tests/conftest.py``): Chromium driven
by Playwright (one per test process, a fresh context per test), a page, where
screenshots go; without Chromium a browser test is skipped before its servers and
workers start, folded into one summary line (tests/browsers.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def screenshots(tmp_path):  # noqa: ANN001, ANN201
    """Where browser tests save screenshots: $EVALHUB_SCREENSHOTS, else tmp_path
    (where only the crawl's lists of pages go: the screenshots are taken only when
    $EVALHUB_SCREENSHOTS is set, ``tests/browsers.py``'s ``screenshot``)."""
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


@pytest.fixture(scope="session")
def _one_chromium(chromium_path):  # noqa: ANN001, ANN202
    """One Chromium for the whole test process (tests/browsers.py), launched by the
    first browser test that asks for it, closed at the end of the session."""
    from tests import browsers

    shared = browsers.Shared(chromium_path)
    yield shared
    shared.close()


@pytest.fixture
def browser(monkeypatch, request):  # noqa: ANN001, ANN201
    """Chromium driven by Playwright: the test process's one Chromium, lent to the
    test; every context (cookies, storage, pages) the test opens is closed at its
    end, so the next test starts from none. Request it (or ``page``) last:
    Playwright's sync API marks an event loop running in this thread while the
    test uses it, and the database fixtures must be set up before."""
    from django.db import connections

    # The test body queries the database while the loop is marked running.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    shared = request.getfixturevalue("_one_chromium")
    yield shared.lend()
    try:
        shared.take_back()
    finally:
        # While Playwright's event loop runs in this thread, Django keeps database
        # connections per async context: a query in the test body opened one of
        # its own, which no database fixture closes (it held a session open when
        # the test database was dropped). Close it while that context is current.
        connections.close_all()
        shared.idle()


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
