"""Starts the test OpenID Connect provider: ``python -m tests.oidc_provider.serve``
with ``OIDC_PROVIDER_DB`` (a SQLite file) and ``OIDC_PROVIDER_SETUP``, JSON of its
users (``username``, ``password``, ``email``, ``verified``) and its one client
(``client_id``, ``secret``, ``redirect_uris``). It migrates, creates them, listens
on a free port of 127.0.0.1 and prints ``port <n>`` once it answers."""

from __future__ import annotations

import json
import os
import socketserver
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class _Server(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _set_up(setup: dict) -> None:  # type: ignore[type-arg]
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from oauth2_provider.models import Application

    from tests.oidc_provider.validator import UNVERIFIED

    call_command("migrate", verbosity=0)
    for user in setup["users"]:
        get_user_model().objects.create_user(
            username=user["username"],
            password=user["password"],
            email=user["email"],
            first_name=user.get("name", ""),
            last_name="" if user.get("verified", True) else UNVERIFIED,
        )
    client = setup["client"]
    Application.objects.create(
        name="evalhub",
        client_id=client["client_id"],
        client_secret=client["secret"],
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=" ".join(client["redirect_uris"]),
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=True,
    )


def main() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
    import django

    django.setup()
    _set_up(json.loads(os.environ["OIDC_PROVIDER_SETUP"]))
    from django.core.wsgi import get_wsgi_application

    server = make_server(
        "127.0.0.1",
        0,
        get_wsgi_application(),
        server_class=_Server,
        handler_class=_QuietHandler,
    )
    print(f"port {server.server_port}", flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
