"""Settings that are a choice between backends, built from the environment by
``evalhub.settings`` (kept here so that module stays readable): where files are
stored and how mail goes out."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from evalhub.env import env_bool, env_int, env_str


def storages(private_root: Path) -> dict[str, dict[str, object]]:
    """``STORAGES``: everything uploaded (inputs, gold, runs, plots) in private
    storage, served only through views that check permissions, nothing under a
    public URL. ``EVALHUB_STORAGE=s3``: S3-compatible object storage (AWS S3,
    MinIO, Ceph, ...) instead of the local folder, for several web and worker
    machines (``pip install 'evalhub[s3]'``); the bucket must be private.
    Credentials: the usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or an
    instance role), read by boto3 itself."""
    found: dict[str, dict[str, object]] = {
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(private_root), "base_url": None},
        },
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
    }
    backend = env_str("EVALHUB_STORAGE", "local")
    if backend == "local":
        return found
    if backend != "s3":
        raise ImproperlyConfigured(
            f"EVALHUB_STORAGE must be 'local' or 's3', not {backend!r}."
        )
    bucket = env_str("EVALHUB_S3_BUCKET")
    if not bucket:
        raise ImproperlyConfigured("EVALHUB_STORAGE=s3 needs EVALHUB_S3_BUCKET.")
    found["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": env_str("EVALHUB_S3_ENDPOINT_URL") or None,
            "region_name": env_str("EVALHUB_S3_REGION") or None,
            "location": env_str("EVALHUB_S3_PREFIX", ""),
            "default_acl": None,  # the bucket's (private) policy
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
    return found


def site_url() -> str:
    """``SITE_URL``: the site's public address (``EVALHUB_SITE_URL``), the start of
    every absolute link (``competitions/public_url.py``): ``http(s)://host[:port]``
    with no path, query or fragment."""
    raw = env_str("EVALHUB_SITE_URL", "http://127.0.0.1:8000").strip()
    bits = urlsplit(raw)
    if bits.scheme not in ("http", "https") or not bits.netloc:
        raise ImproperlyConfigured(
            f"EVALHUB_SITE_URL must be http(s)://host[:port], not {raw!r}."
        )
    if bits.path.strip("/") or bits.query or bits.fragment:
        raise ImproperlyConfigured(
            f"EVALHUB_SITE_URL is the site's address without a path: {raw!r}."
        )
    return f"{bits.scheme}://{bits.netloc}"


def email() -> dict[str, object]:
    """The ``EMAIL_*`` settings. With EVALHUB_EMAIL_HOST set, mail goes out by SMTP.
    Without it (``manage.py up``, a laptop) every message is logged to the console
    and written as a file of its own to ``mail/`` in the data folder, so a reset or
    verification link can be followed."""
    host = env_str("EVALHUB_EMAIL_HOST")
    if not host:
        return {
            "EMAIL_HOST": host,
            "EMAIL_BACKEND": "evalhub.accounts.mail.ConsoleAndFileBackend",
        }
    use_tls = env_bool("EVALHUB_EMAIL_USE_TLS", True)
    use_ssl = env_bool("EVALHUB_EMAIL_USE_SSL", False)
    if use_tls and use_ssl:
        raise ImproperlyConfigured(
            "EVALHUB_EMAIL_USE_TLS and EVALHUB_EMAIL_USE_SSL exclude each other: "
            "STARTTLS (usually port 587) or TLS from the start (usually port 465)."
        )
    return {
        "EMAIL_HOST": host,
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_PORT": env_int("EVALHUB_EMAIL_PORT", 587, minimum=1),
        "EMAIL_HOST_USER": env_str("EVALHUB_EMAIL_USER"),
        "EMAIL_HOST_PASSWORD": env_str("EVALHUB_EMAIL_PASSWORD"),
        "EMAIL_USE_TLS": use_tls,
        "EMAIL_USE_SSL": use_ssl,
        "EMAIL_TIMEOUT": env_int("EVALHUB_EMAIL_TIMEOUT", 10, minimum=1),
    }
