"""Mail settings, read in a fresh process as the platform starts: without
``EVALHUB_EMAIL_HOST`` a mail is logged and written as a file of its own to ``mail/``
in the data folder (what ``manage.py up`` uses); with it, SMTP; contradictory TLS
settings fail loudly at start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(False)

PRINT_MAIL = (
    "import json, django; django.setup(); from django.conf import settings; "
    "print(json.dumps({k: str(getattr(settings, k, '')) for k in ("
    "'EMAIL_BACKEND', 'EMAIL_FILE_PATH', 'EMAIL_HOST', 'EMAIL_PORT', "
    "'EMAIL_USE_TLS', 'EMAIL_USE_SSL', 'DEFAULT_FROM_EMAIL')}))"
)


def _env(tmp_path, **env: str) -> dict[str, str]:  # noqa: ANN001
    clean = {k: v for k, v in os.environ.items() if not k.startswith("EVALHUB_EMAIL_")}
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "evalhub.settings",
        "EVALHUB_VAR_DIR": str(tmp_path),
        **env,
    }


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_without_smtp_a_mail_is_a_file_in_the_data_folder_and_a_log_line(tmp_path):
    done = _run(
        [sys.executable, "manage.py", "sendtestemail", "newcomer@example.org"],
        _env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    (message,) = (tmp_path / "mail").iterdir()
    text = message.read_text()
    assert "To: newcomer@example.org" in text
    assert "Test email from" in text
    assert "mail to newcomer@example.org" in done.stderr  # the console log


def test_smtp_by_settings(tmp_path):
    done = _run(
        [sys.executable, "-c", PRINT_MAIL],
        _env(
            tmp_path,
            EVALHUB_EMAIL_HOST="smtp.example.org",
            EVALHUB_EMAIL_PORT="465",
            EVALHUB_EMAIL_USE_TLS="false",
            EVALHUB_EMAIL_USE_SSL="true",
            EVALHUB_EMAIL_FROM="Shared task <st@example.org>",
        ),
    )
    assert done.returncode == 0, done.stderr
    mail = json.loads(done.stdout)
    assert mail["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (mail["EMAIL_HOST"], mail["EMAIL_PORT"]) == ("smtp.example.org", "465")
    assert (mail["EMAIL_USE_TLS"], mail["EMAIL_USE_SSL"]) == ("False", "True")
    assert mail["DEFAULT_FROM_EMAIL"] == "Shared task <st@example.org>"


def test_tls_and_ssl_together_fail_at_start_up(tmp_path):
    done = _run(
        [sys.executable, "-c", PRINT_MAIL],
        _env(
            tmp_path, EVALHUB_EMAIL_HOST="smtp.example.org", EVALHUB_EMAIL_USE_SSL="1"
        ),
    )
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "EVALHUB_EMAIL_USE_SSL" in done.stderr
