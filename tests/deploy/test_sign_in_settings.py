"""Sign-in providers configured by the operator's variables (issue 44, item 4):
nothing set, no provider; a provider with its client id and secret; several OpenID
Connect providers by id; a half-configured one fails loudly at start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from evalhub import settings_blocks
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(False)

PREFIXES = ("EVALHUB_GITHUB_", "EVALHUB_ORCID_", "EVALHUB_OIDC_")


@pytest.fixture
def clean_env(monkeypatch):  # noqa: ANN001, ANN201
    for name in list(os.environ):
        if name.startswith(PREFIXES):
            monkeypatch.delenv(name)
    return monkeypatch


def _providers() -> dict:  # type: ignore[type-arg]
    return settings_blocks.social_accounts()["SOCIALACCOUNT_PROVIDERS"]  # type: ignore[return-value]


def test_nothing_set_no_provider(clean_env):  # noqa: ANN001
    assert _providers() == {}


def test_github_and_orcid(clean_env):  # noqa: ANN001
    clean_env.setenv("EVALHUB_GITHUB_CLIENT_ID", "gh-id")
    clean_env.setenv("EVALHUB_GITHUB_SECRET", "gh-secret")
    clean_env.setenv("EVALHUB_ORCID_CLIENT_ID", "APP-1")
    clean_env.setenv("EVALHUB_ORCID_SECRET", "orcid-secret")
    providers = _providers()
    assert providers["github"]["APPS"][0]["client_id"] == "gh-id"
    assert "user:email" in providers["github"]["SCOPE"]
    assert providers["orcid"]["BASE_DOMAIN"] == "orcid.org"
    clean_env.setenv("EVALHUB_ORCID_SANDBOX", "true")
    assert _providers()["orcid"]["BASE_DOMAIN"] == "sandbox.orcid.org"


def test_several_openid_connect_providers(clean_env):  # noqa: ANN001
    clean_env.setenv("EVALHUB_OIDC_PROVIDERS", "uni, lab-2")
    for prefix, url in (("UNI", "https://login.uni.example/"), ("LAB_2", "http://x")):
        clean_env.setenv(f"EVALHUB_OIDC_{prefix}_SERVER_URL", url)
        clean_env.setenv(f"EVALHUB_OIDC_{prefix}_CLIENT_ID", f"{prefix}-id")
        clean_env.setenv(f"EVALHUB_OIDC_{prefix}_SECRET", f"{prefix}-secret")
    clean_env.setenv("EVALHUB_OIDC_UNI_NAME", "University of Example")
    uni, lab = _providers()["openid_connect"]["APPS"]
    assert uni["provider_id"] == "uni" and uni["name"] == "University of Example"
    assert uni["settings"]["server_url"] == "https://login.uni.example"
    assert uni["client_id"] == "UNI-id" and uni["secret"] == "UNI-secret"
    assert lab["provider_id"] == "lab-2" and lab["name"] == "lab-2"


@pytest.mark.parametrize(
    "env",
    [
        {"EVALHUB_GITHUB_CLIENT_ID": "id-without-secret"},
        {"EVALHUB_ORCID_SECRET": "secret-without-id"},
        {"EVALHUB_OIDC_PROVIDERS": "uni"},  # nothing else
        {
            "EVALHUB_OIDC_PROVIDERS": "uni",
            "EVALHUB_OIDC_UNI_CLIENT_ID": "a",
            "EVALHUB_OIDC_UNI_SECRET": "b",
            "EVALHUB_OIDC_UNI_SERVER_URL": "login.uni.example",  # no scheme
        },
        {"EVALHUB_OIDC_PROVIDERS": "github"},  # allauth's own id
        {"EVALHUB_OIDC_PROVIDERS": "Uni Versity"},
    ],
)
def test_a_half_configured_provider_fails_loudly(clean_env, env):  # noqa: ANN001
    for name, value in env.items():
        clean_env.setenv(name, value)
    with pytest.raises(ImproperlyConfigured):
        settings_blocks.social_accounts()


def test_the_platform_reads_them_at_start(tmp_path):  # noqa: ANN001
    env = {k: v for k, v in os.environ.items() if not k.startswith(PREFIXES)}
    env.update(
        DJANGO_SETTINGS_MODULE="evalhub.settings",
        EVALHUB_VAR_DIR=str(tmp_path),
        EVALHUB_GITHUB_CLIENT_ID="gh-id",
        EVALHUB_GITHUB_SECRET="gh-secret",
    )
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps(sorted(settings.SOCIALACCOUNT_PROVIDERS)))"
    )
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["github"]
    env["EVALHUB_GITHUB_SECRET"] = ""
    failed = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert failed.returncode != 0 and "EVALHUB_GITHUB_SECRET" in failed.stderr
