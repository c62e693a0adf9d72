"""The guides' runnable shell examples do what the guides say, against a live demo
site: ``manage.py up`` with its demo tasks (the README's first command), a participant
who signed up, registered a team and created a token on the site's own pages, and the
demo organiser's organising token made on the same page. Each guide's runnable blocks
run in order with bash in a folder of their own that looks like the checkout, with the
variables the guide's ``environment`` block names; each must exit with status 0 and
print what the guide shows (``tests/doc_examples.py``; the convention:
``docs/guides/contributing.md``, *Runnable examples*).

The same ``up`` (one start of it is the CPU of several tests) then serves the tests
of its mails with no SMTP server, as a newcomer runs it: a password reset asked for
on the site is written as a file to ``mail/`` in the data folder (and shown in up's
log), and the link read from that file sets a new password that logs in; a mail
sent by the worker links to the address up serves. Last, ``up`` is SIGKILLed:
nothing it started outlives it (``tests/e2e/test_up_heals.py`` stops it with
SIGTERM and Ctrl-C)."""

from __future__ import annotations

import html
import os
import re
import sys
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import doc_examples
from tests.doc_examples import Block
from tests.paths import REPO_ROOT
from tests.processes import children_running
from tests.reliability.conftest import wait_for
from tests.up_stack import REFRESH_WORKER, Browser, Up

GUIDES = REPO_ROOT / "docs" / "guides"

#: The fewest runnable blocks a guide keeps (any other guide with a shell example: 1),
#: so that the marker cannot silently vanish from a page.
MINIMUM = {
    "participant.md": 3,
    "organiser.md": 3,
    "operator.md": 3,
    "participants.md": 1,
    "task-type-author.md": 1,
    "contributing.md": 1,
}
#: Whose token a guide's ``EVALHUB_TOKEN`` is.
TOKENS = {
    "participant.md": "participant",
    "organiser.md": "organiser",
    "participants.md": "organiser",
}
#: Guides whose examples read the source tree in place (and write nothing into it).
IN_CHECKOUT = {"contributing.md"}
#: The participant the test signs up, and the demo task their team registers for.
PARTICIPANT = ("ada", "ada@example.org", "Reader-Password-29")
PARTICIPANT_TASK = "demo-term-extraction"


def _guides() -> list[Path]:
    return sorted(GUIDES.glob("*.md"))


def _with_examples() -> list[str]:
    return [p.name for p in _guides() if doc_examples.runnable(p)]


def test_every_guide_with_shell_examples_keeps_runnable_ones():
    counts = {p.name: len(doc_examples.runnable(p)) for p in _guides()}
    assert set(MINIMUM) <= set(counts), sorted(set(MINIMUM) - set(counts))
    for page in _guides():
        if doc_examples.shell_examples(page):
            wanted = MINIMUM.get(page.name, 1)
            assert counts[page.name] >= wanted, (page.name, counts[page.name], wanted)
    for name in _with_examples():
        assert doc_examples.environment(GUIDES / name) == (
            {"SITE", "EVALHUB_TOKEN"} if name in TOKENS else set()
        ), name


def test_the_reading_of_a_page_and_the_check_of_a_block(tmp_path):
    """A runnable block and its output; a block shown inside a longer fence is text;
    a wrong output, a failing command and a stray output block are caught."""
    page = tmp_path / "page.md"
    page.write_text(
        "```{code-block} sh\n:class: environment\nexport SITE=x\n```\n\n"
        "````md\n```{code-block} sh\n:class: runnable\nfalse\n```\n````\n\n"
        "```{code-block} sh\n:class: runnable\nprintf 'run\\t7\\nstatus  ok\\n'\n```\n"
        "```{code-block} text\n:class: output\nrun ...\nstatus ok\n```\n"
        "```sh\nnot run\n```\n",
        encoding="utf-8",
    )
    (example,) = doc_examples.runnable(page)
    assert example.output == "run ...\nstatus ok"
    assert doc_examples.environment(page) == {"SITE"}
    assert len(doc_examples.shell_examples(page)) == 3
    env = dict(os.environ)
    assert doc_examples.run(example, cwd=tmp_path, env=env) == ""

    def check(text: str, output: str | None = None) -> str:
        block = Block(1, "sh", frozenset({"runnable"}), text, output)
        return doc_examples.run(block, cwd=tmp_path, env=env)

    assert "printed:" in check("echo 'run 7'; echo failed", "run ...\nstatus ok")
    assert "status 3" in check("exit 3")
    assert "status 1" in check("false | cat")  # pipefail
    assert "status 1" in check("false\necho after")  # -e
    assert not doc_examples.matches("run ...", "run 7\nstatus ok")  # one line only
    with pytest.raises(ValueError, match="line 1"):
        doc_examples.blocks("```{code-block} text\n:class: output\nx\n```\n")


@dataclass
class Site:
    up: Up
    tokens: dict[str, str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.up.port}"


def _post(browser, path: str, fields: list[tuple[str, str]]) -> str:  # noqa: ANN001
    """Post the form at ``path`` with its CSRF token (repeated fields allowed)."""
    url, page = browser.get(path)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert csrf, page[:2000]
    data = urllib.parse.urlencode([("csrfmiddlewaretoken", csrf[1]), *fields])
    with browser.opener.open(url, data.encode(), timeout=60) as response:
        return response.read().decode()


def _new_token(browser, fields: list[tuple[str, str]]) -> str:  # noqa: ANN001
    page = _post(browser, "/account/tokens/", [("expires", ""), *fields])
    shown = re.search(r'<code id="new-token" class="token">([^<]+)</code>', page)
    assert shown, page[:3000]
    return shown[1]


def _tokens(base: str) -> dict[str, str]:
    """A participant's and the demo organiser's tokens, made as a reader makes them:
    sign up, register a team on the task page, the API tokens page."""
    user, email, password = PARTICIPANT
    participant = Browser(base)
    page = _post(
        participant,
        "/accounts/signup/",
        [("username", user), ("email", email),
         ("password1", password), ("password2", password)],
    )  # fmt: skip
    assert f"Signed in as <strong>{user}</strong>" in page, page[:3000]
    page = _post(
        participant, f"/tasks/{PARTICIPANT_TASK}/register/", [("new_team", "Ada")]
    )
    assert "Team Ada is registered" in page, page[:3000]
    organiser = Browser(base)
    page = _post(
        organiser,
        "/accounts/login/",
        [("login", "organiser"), ("password", "evalhub-demo")],
    )
    assert "Signed in as <strong>organiser</strong>" in page, page[:3000]
    _, form = organiser.get("/account/tokens/")
    tasks = re.findall(r'name="tasks" value="(\d+)"', form)
    assert len(tasks) >= 5, form[:3000]  # every demo task
    return {
        "participant": _new_token(
            participant, [("name", "laptop"), ("scope", "submit")]
        ),
        "organiser": _new_token(
            organiser,
            [("name", "scripts"), ("scope", "organise")]
            + [("tasks", t) for t in tasks],
        ),
    }


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory) -> Iterator[Site]:  # noqa: ANN001
    up = Up(tmp_path_factory.mktemp("up"), demo=True)
    try:
        up.wait_ready()

        def demo_runs_done() -> bool:
            runs = up.runs()
            return bool(runs) and all(r[1] in ("scored", "failed") for r in runs)

        wait_for(demo_runs_done, "the demo runs to be scored", timeout=600)
        base = f"http://127.0.0.1:{up.port}"
        yield Site(up, _tokens(base))
    finally:
        up.stop()


def _checkout_view(folder: Path) -> Path:
    """A folder that looks like the checkout to the examples (``.venv``: the
    environment running the tests; ``manage.py``, ``tests/``...: links to the real
    ones), where what they write stays."""
    for entry in REPO_ROOT.iterdir():
        if entry.name not in (".git", ".venv", "var"):
            (folder / entry.name).symlink_to(entry)
    (folder / ".venv").symlink_to(sys.prefix)  # this environment (a venv's root)
    return folder


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.parametrize("guide", _with_examples())
def test_the_runnable_examples_of_a_guide_do_what_it_says(guide, demo_site, tmp_path):  # noqa: ANN001
    env = {k: v for k, v in demo_site.up.env.items() if k != "EVALHUB_TOKEN"}
    if guide in TOKENS:
        env.update(SITE=demo_site.url, EVALHUB_TOKEN=demo_site.tokens[TOKENS[guide]])
    cwd = REPO_ROOT if guide in IN_CHECKOUT else _checkout_view(tmp_path)
    for block in doc_examples.runnable(GUIDES / guide):
        problem = doc_examples.run(block, cwd=cwd, env=env)
        assert not problem, f"{guide}: {problem}"


# --- the same up's mails (no SMTP server), then SIGKILLed -------------------------


def _new_mail(up: Up, before: set[Path], timeout: float) -> Path:
    """The one mail file written since ``before`` (the files there then)."""
    folder = up.var / "mail"
    (mail,) = wait_for(
        lambda: set(folder.glob("*.log")) - before, "the mail file", timeout
    )
    return mail


def _mails(up: Up) -> set[Path]:
    return set((up.var / "mail").glob("*.log"))


@pytest.mark.e2e
@pytest.mark.slow
def test_a_password_reset_mail_is_a_file_whose_link_works(demo_site):  # noqa: ANN001
    up = demo_site.up
    before = _mails(up)
    assert "mails (sign-up verification, password reset) are logged" in up.log()
    up.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; get_user_model().objects"
        ".create_user('newcomer', 'newcomer@example.org', 'old-Password-29')",
    )
    browser = Browser(demo_site.url)
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


@pytest.mark.e2e
@pytest.mark.slow
def test_a_mail_sent_by_the_worker_links_to_the_bound_address(demo_site):  # noqa: ANN001
    """Issue 43: the worker's mails linked to 127.0.0.1:8000 whatever ``--bind``
    said; up's log names the address gunicorn serves and its control socket is the
    instance's own, in the data folder. Scoring has a worker of its own (43.11): the
    mail goes through the other one, with the refreshes."""
    up = demo_site.up
    assert len(up.workers()) == 1
    assert len(children_running(up.proc.pid, REFRESH_WORKER)) == 1
    site = demo_site.url
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


@pytest.mark.e2e
@pytest.mark.slow
def test_nothing_outlives_a_killed_up(demo_site):  # noqa: ANN001
    """The module's last test: its ``up`` SIGKILLed, nothing it started lives on
    (each program asked the kernel for a signal when ``up`` dies)."""
    up = demo_site.up
    up.wait_ready()
    started = up.remember()
    assert len(started) >= 6  # redis, worker + pool, beat, gunicorn + 2 workers
    up.proc.kill()
    up.proc.wait(timeout=10)
    up.assert_nothing_left()
