"""The site's public address, the one source of every absolute link: the links in
mails (notification mails sent by a worker, account mails sent in a request),
invitation links and the address shown for the command-line client. It is the
setting ``SITE_URL`` (environment ``EVALHUB_SITE_URL``; ``manage.py up`` sets it from
``--bind`` unless it is given), never the host a request happened to use: a worker
has no request, and a mail must not depend on which of a site's names a visitor
typed."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

#: What a site calls itself in mails ("Hello from evalhub!").
SITE_NAME = "evalhub"


def site_url() -> str:
    """The public address without a trailing slash, e.g. ``https://evalhub.org``."""
    return str(settings.SITE_URL).rstrip("/")


def absolute(path: str) -> str:
    """``path`` (``/tasks/x/``) as a link anyone can follow from a mail."""
    if not path.startswith("/"):
        raise ValueError(f"a site path starts with '/': {path!r}")
    return site_url() + path


def domain() -> str:
    """The host (and port) of the public address: ``127.0.0.1:8161``."""
    return urlsplit(site_url()).netloc


def from_bind(bind: str) -> str:
    """The address a browser on this machine uses for a server bound to ``bind``
    (``host:port``); a wildcard host (``0.0.0.0``, ``[::]``) is reached as
    ``127.0.0.1``."""
    host, _, port = bind.rpartition(":")
    if host in ("", "0.0.0.0", "[::]", "::"):
        host = "127.0.0.1"
    return f"http://{host}:{port}"
