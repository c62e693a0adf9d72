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
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_up_heals import REFRESH_WORKER, Up
from tests.paths import REPO_ROOT
from tests.processes import alive, children_running
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


@pytest.fixture(scope="module")
def up(tmp_path_factory) -> Iterator[Up]:  # noqa: ANN001
    """One ``up`` for this module's tests (each starts its own user and waits for
    its own mail): a start of ``up`` (migrations, gunicorn, two workers, beat,
    Redis) is the CPU of several tests."""
    stack = Up(tmp_path_factory.mktemp("up"))
    yield stack
    stack.remember()
    if stack.proc.poll() is None:
        stack.proc.send_signal(signal.SIGTERM)
        stack.proc.wait(timeout=60)
    for pid in stack.seen:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def _new_mail(up: Up, before: set[Path], timeout: float) -> Path:
    """The one mail file written since ``before`` (the files there then)."""
    folder = up.var / "mail"
    (mail,) = wait_for(
        lambda: set(folder.glob("*.log")) - before, "the mail file", timeout
    )
    return mail


def _mails(up: Up) -> set[Path]:
    return set((up.var / "mail").glob("*.log"))


def test_a_password_reset_mail_is_a_file_whose_link_works(up):  # noqa: ANN001
    up.wait_ready()
    before = _mails(up)
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

    text = _new_mail(up, before, 30).read_text()
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


#: Run in ``manage.py shell`` beside a running ``up``: a notification to be mailed,
#: whose mail job goes to up's broker and its worker (no request anywhere).
NOTIFY = """
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from evalhub.notifications.services.notify import notify
user = get_user_model().objects.create_user('reader')
EmailAddress.objects.create(user=user, email='reader@example.org', verified=True,
                            primary=True)
notify(recipients=[user], key='e2e:reveal', text='Results are now public.',
       link='/tasks/', mail=True)
"""


def test_a_mail_sent_by_the_worker_links_to_the_bound_address(up):  # noqa: ANN001
    """Issue 43: the worker's mails linked to 127.0.0.1:8000 whatever ``--bind``
    said; up's log names the address gunicorn serves and its control socket is the
    instance's own, in the data folder. Scoring has a worker of its own (43.11): the
    mail goes through the other one, with the refreshes."""
    up.wait_ready()
    assert len(up.workers()) == 1
    assert len(children_running(up.proc.pid, REFRESH_WORKER)) == 1
    site = f"http://127.0.0.1:{up.port}"
    before = _mails(up)
    up.manage("shell", "-c", NOTIFY)
    text = _new_mail(up, before, 60).read_text()
    assert "Subject: [evalhub] Results are now public." in text
    assert f"{site}/tasks/" in text and f"{site}/notifications/mail/" in text
    assert "127.0.0.1:8000" not in text

    log = up.log()
    assert f"links in mails start with {site}" in log
    assert f"Serving evalhub at {site}" in log
    control = up.var / "gunicorn.ctl"
    assert f"Control socket listening at {control}" in log
    assert control.exists()


def test_up_help_names_the_data_folder_variable():
    out = subprocess.run(
        [sys.executable, "manage.py", "up", "--help"], cwd=REPO_ROOT,
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    assert "EVALHUB_VAR_DIR" in out and "EVALHUB_SITE_URL" in out
