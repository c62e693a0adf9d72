"""Storage settings for scale-out: EVALHUB_STORAGE=s3 switches the private storage to
django-storages' S3 backend (any S3-compatible endpoint); a missing bucket or an
unknown backend fails loudly at start-up. Settings are read in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(False)

PRINT_STORAGE = (
    "import json, django; django.setup(); from django.conf import settings; "
    "print(json.dumps(settings.STORAGES['default']))"
)


def _settings(tmp_path, **env: str) -> subprocess.CompletedProcess[str]:  # noqa: ANN001
    clean = {k: v for k, v in os.environ.items() if not k.startswith("EVALHUB_S")}
    return subprocess.run(
        [sys.executable, "-c", PRINT_STORAGE],
        cwd=REPO_ROOT,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "evalhub.settings",
            "EVALHUB_VAR_DIR": str(tmp_path),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_local_folder_by_default(tmp_path):
    done = _settings(tmp_path)
    assert done.returncode == 0, done.stderr
    storage = json.loads(done.stdout)
    assert storage["BACKEND"] == "django.core.files.storage.FileSystemStorage"


def test_s3_compatible_storage(tmp_path):
    done = _settings(
        tmp_path,
        EVALHUB_STORAGE="s3",
        EVALHUB_S3_BUCKET="evalhub-private",
        EVALHUB_S3_ENDPOINT_URL="https://objects.internal:9000",
        EVALHUB_S3_PREFIX="prod",
    )
    assert done.returncode == 0, done.stderr
    storage = json.loads(done.stdout)
    assert storage["BACKEND"] == "storages.backends.s3.S3Storage"
    options = storage["OPTIONS"]
    assert options["bucket_name"] == "evalhub-private"
    assert options["endpoint_url"] == "https://objects.internal:9000"
    assert options["location"] == "prod"
    # Private files: signed URLs only, never a public ACL, never overwritten.
    assert options["querystring_auth"] is True
    assert options["default_acl"] is None and options["file_overwrite"] is False


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"EVALHUB_STORAGE": "s3"}, "EVALHUB_S3_BUCKET"),
        ({"EVALHUB_STORAGE": "ftp"}, "EVALHUB_STORAGE must be"),
    ],
)
def test_bad_storage_settings_fail_loudly(tmp_path, env, message):  # noqa: ANN001
    done = _settings(tmp_path, **env)
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and message in done.stderr
