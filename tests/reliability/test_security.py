"""Upload size limit while streaming, rate limits on login and submission, and
``manage.py check --deploy`` with production settings."""

from __future__ import annotations

import io
import os
import secrets
import subprocess
import sys

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import RequestFactory
from django.urls import reverse

from evalhub.competitions.models import Submission
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db


class CountingInput(io.BytesIO):
    """A request body that records how much of it the server read."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.consumed = 0

    def read(self, size: int = -1) -> bytes:
        chunk = super().read(size)
        self.consumed += len(chunk)
        return chunk

    def readline(self, size: int = -1) -> bytes:
        chunk = super().readline(size)
        self.consumed += len(chunk)
        return chunk


def _post_streamed(url: str, user, filename: str, data: bytes):  # noqa: ANN001, ANN202
    """Send a multipart upload through the real WSGI handler; returns (status,
    body, bytes of the request body the server read, its total size)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    token = "a" * 32  # a valid CSRF secret, sent as cookie and as the form's field
    request = RequestFactory().post(
        url,
        {
            "csrfmiddlewaretoken": token,
            "method_name": "big",
            "run": SimpleUploadedFile(filename, data),
        },
    )
    environ = dict(request.environ)
    body = environ["wsgi.input"].read()
    counting = CountingInput(body)
    environ["wsgi.input"] = counting
    environ["HTTP_COOKIE"] = f"sessionid={session.session_key}; csrftoken={token}"
    status: list[str] = []
    # As Django's test client does: keep the test's database connection open.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        response = WSGIHandler()(environ, lambda s, h, *a: status.append(s))
        content = b"".join(response)
        response.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return int(status[0].split()[0]), content, counting.consumed, len(body)


@pytest.fixture
def submit_url(task, phase):  # noqa: ANN001, ANN201
    return reverse("competitions:run-submit", args=[task.slug, phase.slug])


def test_upload_over_the_limit_is_refused_before_the_body_is_read(
    settings, participant, team, test_set, submit_url, demo_run
):
    settings.MAX_UPLOAD_BYTES = 64 * 1024
    # Declared too large: 413 without reading any of the body.
    status, body, consumed, total = _post_streamed(
        submit_url, participant, "run.tsv", demo_run * 100
    )
    assert status == 413 and consumed == 0 and total > 1_000_000
    assert b"limit of 65,536 bytes" in body
    # Within the form overhead but the file itself too large: the upload handler stops
    # the stream shortly after the limit.
    status, body, consumed, total = _post_streamed(
        submit_url, participant, "run.tsv", b"x" * (250 * 1024)
    )
    assert status == 413, body[:500]
    assert consumed < 160 * 1024 < total
    assert not Submission.objects.exists()


def test_upload_under_the_limit_still_works(
    settings, participant, team, test_set, submit_url, demo_run
):
    settings.MAX_UPLOAD_BYTES = len(demo_run) + 10
    status, body, consumed, total = _post_streamed(
        submit_url, participant, "run.tsv", demo_run
    )
    assert status == 302, body[:2000]
    assert consumed == total
    assert Submission.objects.get().size == len(demo_run)


def test_login_attempts_are_rate_limited_per_address_and_name(
    client, settings, participant, outsider, isolated_storage
):
    settings.LOGIN_RATE = "3/600"
    url = reverse("account_login")
    for _ in range(3):
        r = client.post(url, {"login": "alice", "password": "wrong"})
        assert r.status_code == 200  # the form with an error
    r = client.post(url, {"login": "alice", "password": "pw-alice-1"})
    assert r.status_code == 429 and int(r["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session  # the right password did not help
    # Another account from the same address is not locked out by alice's attempts.
    r = client.post(url, {"login": "mallory", "password": "pw-mallory-1"})
    assert r.status_code == 302


def test_submissions_are_rate_limited_per_user(
    client, settings, participant, outsider, team, test_set, submit_url, demo_run
):
    settings.SUBMIT_RATE = "2/600"
    client.force_login(participant)
    codes = [
        client.post(
            submit_url,
            {"method_name": f"m{i}", "run": SimpleUploadedFile("r.tsv", demo_run)},
        ).status_code
        for i in range(3)
    ]
    assert codes == [302, 302, 429]
    assert Submission.objects.count() == 2
    assert client.get(submit_url).status_code == 200  # reading is not limited
    client.force_login(outsider)  # another user has their own budget
    r = client.post(submit_url, {"method_name": "x"})
    assert r.status_code != 429


def test_refusals_quote_no_gold(
    client, settings, participant, outsider, team, test_set, submit_url, bucc_demo
):
    gold_line = bucc_demo.test_sets[0].gold["gold"].splitlines()[0]
    settings.SUBMIT_RATE = "0/600"
    settings.MAX_UPLOAD_BYTES = 1024
    for user in (None, participant, outsider):
        client.logout()
        if user is not None:
            client.force_login(user)
        big = client.post(
            submit_url,
            {"method_name": "m", "run": SimpleUploadedFile("r.tsv", b"x" * 400_000)},
        )
        limited = client.post(submit_url, {"method_name": "m"})
        assert big.status_code == 413 and limited.status_code == 429
        for r in (big, limited):
            assert gold_line not in r.content


def _check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO_ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.django_db(False)
def test_check_deploy_is_clean_with_production_settings(tmp_path):
    production = {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
        "DJANGO_DEBUG": "false",
        "DJANGO_ALLOWED_HOSTS": "evalhub.example.org",
        "EVALHUB_SECURE": "true",
        "EVALHUB_VAR_DIR": str(tmp_path),
    }
    done = _check_deploy(production)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout
    # The check is not vacuous: without HTTPS hardening it fails.
    insecure = _check_deploy({**production, "EVALHUB_SECURE": "false"})
    assert insecure.returncode != 0
    assert "security.W004" in insecure.stdout + insecure.stderr
