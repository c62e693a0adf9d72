"""The sign-in tests' OpenID Connect provider (``tests/oidc_provider/``): started as
a process of its own, and a sign-in through it as a person makes one, by web
requests: evalhub's login button (test client), the provider's login form and its
redirects (real HTTP), then evalhub's callback, which asks the provider for the
tokens and the user's claims over HTTP."""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import requests

from tests.paths import REPO_ROOT

PROVIDER_ID = "uni"
CLIENT_ID = "evalhub-test-client"
SECRET = "evalhub-test-secret"  # noqa: S105 - the test provider's only
PASSWORD = "provider-pass-1"  # noqa: S105
TEST_SERVER = "http://testserver"
CALLBACK_PATH = f"/accounts/oidc/{PROVIDER_ID}/login/callback/"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@dataclass(frozen=True)
class Provider:
    url: str  #: the issuer, http://127.0.0.1:<port>/o

    def environment(self) -> dict[str, str]:
        """The operator's variables that configure evalhub for it."""
        prefix = f"EVALHUB_OIDC_{PROVIDER_ID.upper()}"
        return {
            "EVALHUB_OIDC_PROVIDERS": PROVIDER_ID,
            f"{prefix}_NAME": "University of Testing",
            f"{prefix}_SERVER_URL": self.url,
            f"{prefix}_CLIENT_ID": CLIENT_ID,
            f"{prefix}_SECRET": SECRET,
        }


@contextmanager
def running_provider(
    users: list[dict[str, object]],
    folder: Path,
    sites: tuple[str, ...] = (TEST_SERVER,),
) -> Iterator[Provider]:
    """The provider with these users (``username``, ``email``, ``verified``; the
    password is ``PASSWORD``), sending back to evalhub at ``sites`` (the test
    client's, or a live server's address), until the block ends."""
    setup = {
        "users": [{"password": PASSWORD, **user} for user in users],
        "client": {
            "client_id": CLIENT_ID,
            "secret": SECRET,
            "redirect_uris": [site + CALLBACK_PATH for site in sites],
        },
    }
    env = {
        **os.environ,
        "OIDC_PROVIDER_DB": str(folder / "provider.sqlite3"),
        "OIDC_PROVIDER_SETUP": json.dumps(setup),
    }
    process = subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "tests.oidc_provider.serve"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            ready = selector.select(timeout=120)
        line = process.stdout.readline() if ready else ""
        assert line.startswith("port "), f"the provider did not start: {line!r}"
        yield Provider(url=f"http://127.0.0.1:{int(line.split()[1])}/o")
    finally:
        process.terminate()
        process.wait(timeout=30)


def sign_in(client, username: str, *, start: str = "/accounts/login/"):  # noqa: ANN001, ANN201
    """Press the provider's button on evalhub's login page (its form's action), log
    in at the provider as ``username`` and follow the redirects back: evalhub's
    answer to the callback."""
    page = client.get(start).content.decode()
    action = re.search(
        rf'<form method="post" action="(/accounts/oidc/{PROVIDER_ID}/login/[^"]*)"',
        page,
    )
    assert action, "no button of the provider on the login page"
    answer = client.post(action.group(1).replace("&amp;", "&"))
    assert answer.status_code == 302, answer.content[:500]
    url = answer["Location"]
    browser = requests.Session()
    for _ in range(10):
        if url.startswith(TEST_SERVER + "/"):
            return client.get(url[len(TEST_SERVER) :])
        response = browser.get(url, allow_redirects=False, timeout=30)
        if response.status_code == 200 and (token := CSRF.search(response.text)):
            next_url = re.search(r'name="next" value="([^"]*)"', response.text)
            response = browser.post(
                response.url,
                data={
                    "csrfmiddlewaretoken": token.group(1),
                    "username": username,
                    "password": PASSWORD,
                    "next": next_url.group(1).replace("&amp;", "&") if next_url else "",
                },
                headers={"Referer": response.url},
                allow_redirects=False,
                timeout=30,
            )
        assert response.status_code in (301, 302), (
            response.status_code,
            response.text[:500],
        )
        url = urljoin(response.url, response.headers["Location"])
    raise AssertionError("the provider never sent the browser back to evalhub")
