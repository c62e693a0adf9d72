"""``manage.py up`` with no SMTP server, as a newcomer runs it: a password reset asked
for on the site is written as a file to ``mail/`` in the data folder (and shown in
up's log), and the link read from that file sets a new password that logs in. Plain
HTTP against the real gunicorn, no test client."""

from __future__ import annotations

import html
import http.cookiejar
import os
import re
import signal
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest

from tests.e2e.test_up_heals import Up
from tests.processes import alive
from tests.reliability.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


class Browser:
    """Cookies, CSRF tokens and redirects, as a browser keeps them."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def get(self, url: str) -> tuple[str, str]:
        """(final URL, page) after redirects."""
        full = url if url.startswith("http") else self.base + url
        with self.opener.open(full, timeout=30) as response:
            return response.geturl(), response.read().decode()

    def submit(self, url: str, fields: dict[str, str]) -> tuple[str, str]:
        """Load the form at ``url`` and post it with its CSRF token."""
        url, page = self.get(url)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, page[:2000]
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": token[1], **fields})
        with self.opener.open(url, data.encode(), timeout=30) as response:
            return response.geturl(), response.read().decode()


@pytest.fixture
def up(tmp_path) -> Iterator[Up]:  # noqa: ANN001
    stack = Up(tmp_path)
    yield stack
    stack.remember()
    if stack.proc.poll() is None:
        stack.proc.send_signal(signal.SIGTERM)
        stack.proc.wait(timeout=60)
    for pid in stack.seen:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_password_reset_mail_is_a_file_whose_link_works(up):  # noqa: ANN001
    up.wait_ready()
    assert "mails (sign-up verification, password reset) are logged" in up.log()
    up.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; get_user_model().objects"
        ".create_user('newcomer', 'newcomer@example.org', 'old-Password-29')",
    )
    browser = Browser(f"http://127.0.0.1:{up.port}")
    url, _ = browser.submit(
        "/accounts/password/reset/", {"email": "newcomer@example.org"}
    )
    assert url.endswith("/accounts/password/reset/done/")

    folder = up.var / "mail"
    (mail,) = wait_for(lambda: list(folder.glob("*.log")), "the mail file", 30)
    text = mail.read_text()
    assert "To: newcomer@example.org" in text
    (link,) = re.findall(
        r"http://127\.0\.0\.1:\d+/accounts/password/reset/key/\S+/", text
    )
    assert link in up.log()  # the console log shows the same mail

    url, page = browser.get(link)
    assert url.endswith("-set-password/"), page[:2000]
    fields = {"password1": "new-Password-29", "password2": "new-Password-29"}
    url, _ = browser.submit(url, fields)
    assert url.endswith("/accounts/password/reset/key/done/")

    fresh = Browser(browser.base)
    url, page = fresh.submit(
        "/accounts/login/", {"login": "newcomer", "password": "new-Password-29"}
    )
    assert "Signed in as <strong>newcomer</strong>" in page, html.unescape(page)[:2000]
