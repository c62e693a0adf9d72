"""Settings that are a choice between backends, built from the environment by
``evalhub.settings`` (kept here so that module stays readable): where files are
stored, how mail goes out, and which sites one may sign in with."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from evalhub.env import env_bool, env_int, env_list, env_str


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


#: The allauth apps of sign-in through another site (installed whether or not a
#: provider is configured: the tables exist, the login page shows no button).
SOCIAL_APPS = [
    "allauth.socialaccount",
    "allauth.socialaccount.providers.github",
    "allauth.socialaccount.providers.orcid",
    "allauth.socialaccount.providers.openid_connect",
]
#: The ids allauth's own providers take; an OpenID Connect provider needs another.
_BUILT_IN_IDS = {"github", "orcid", "openid_connect"}
_PROVIDER_ID = re.compile(r"^[a-z][a-z0-9-]{0,29}$")


def _app(prefix: str) -> dict[str, str] | None:
    """A provider's client id and secret (``<prefix>_CLIENT_ID``, ``_SECRET``):
    both, or neither (not configured)."""
    client_id = env_str(f"{prefix}_CLIENT_ID").strip()
    secret = env_str(f"{prefix}_SECRET").strip()
    if not client_id and not secret:
        return None
    if not client_id or not secret:
        raise ImproperlyConfigured(
            f"{prefix}_CLIENT_ID and {prefix}_SECRET are set together."
        )
    return {"client_id": client_id, "secret": secret, "key": ""}


def _oidc_app(provider_id: str) -> dict[str, object]:
    if not _PROVIDER_ID.match(provider_id) or provider_id in _BUILT_IN_IDS:
        raise ImproperlyConfigured(
            "EVALHUB_OIDC_PROVIDERS names each provider by a short id (lowercase "
            "letters, digits, '-'; not github, orcid or openid_connect), "
            f"not {provider_id!r}."
        )
    prefix = "EVALHUB_OIDC_" + provider_id.upper().replace("-", "_")
    app = _app(prefix)
    server_url = env_str(f"{prefix}_SERVER_URL").strip().rstrip("/")
    bits = urlsplit(server_url)
    if app is None or bits.scheme not in ("http", "https") or not bits.netloc:
        raise ImproperlyConfigured(
            f"The OpenID Connect provider {provider_id!r} needs {prefix}_SERVER_URL "
            f"(its issuer, http(s)://...), {prefix}_CLIENT_ID and {prefix}_SECRET."
        )
    return {
        **app,
        "provider_id": provider_id,
        "name": env_str(f"{prefix}_NAME").strip() or provider_id,
        "settings": {"server_url": server_url, "oauth_pkce_enabled": True},
    }


def social_accounts() -> dict[str, object]:
    """The ``SOCIALACCOUNT_*`` settings: sign-in with GitHub
    (``EVALHUB_GITHUB_CLIENT_ID`` / ``_SECRET``), ORCID (``EVALHUB_ORCID_*``,
    ``EVALHUB_ORCID_SANDBOX``) and the OpenID Connect providers named in
    ``EVALHUB_OIDC_PROVIDERS`` (``EVALHUB_OIDC_<ID>_SERVER_URL``, ``_CLIENT_ID``,
    ``_SECRET``, ``_NAME``). A provider without a client id is not offered.

    A provider's account signs in to the account that verified the same address,
    when the provider says the address is verified too; never to one that only
    claims it (``accounts/social.SocialAccountAdapter.authenticate_by_email``)."""
    providers: dict[str, dict[str, object]] = {}
    if github := _app("EVALHUB_GITHUB"):
        providers["github"] = {"APPS": [github], "SCOPE": ["read:user", "user:email"]}
    if orcid := _app("EVALHUB_ORCID"):
        sandbox = env_bool("EVALHUB_ORCID_SANDBOX", False)
        providers["orcid"] = {
            "APPS": [orcid],
            "BASE_DOMAIN": "sandbox.orcid.org" if sandbox else "orcid.org",
            "MEMBER_API": False,
        }
    oidc = [_oidc_app(i) for i in env_list("EVALHUB_OIDC_PROVIDERS", [])]
    if len({app["provider_id"] for app in oidc}) != len(oidc):
        raise ImproperlyConfigured("EVALHUB_OIDC_PROVIDERS names a provider twice.")
    if oidc:
        providers["openid_connect"] = {"APPS": oidc}
    return {
        "SOCIALACCOUNT_PROVIDERS": providers,
        "SOCIALACCOUNT_ADAPTER": "evalhub.accounts.social.SocialAccountAdapter",
        # Linking by address: the adapter's rule (verified on both sides).
        "SOCIALACCOUNT_EMAIL_AUTHENTICATION": True,
        "SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT": True,
        # A new account made at the first sign-in, without a form.
        "SOCIALACCOUNT_AUTO_SIGNUP": True,
        "SOCIALACCOUNT_STORE_TOKENS": False,
    }


def logging(level: str) -> dict[str, object]:
    """Every log line to standard error, plain, at ``level`` (the workers' routine
    ticks kept quiet: ``evalhub.logfilters.QuietTicks``)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
        },
        "filters": {"quiet_ticks": {"()": "evalhub.logfilters.QuietTicks"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "filters": ["quiet_ticks"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
    }
