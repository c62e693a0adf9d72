"""What an anonymous visitor reads of the site: every page reachable by links from
a few addresses, through the test client (the production views), and what each
answered. Used to compare a task before and after its archive's round trip."""

from __future__ import annotations

import html
import io
import re
import zipfile
from collections.abc import Iterable
from urllib.parse import urljoin, urlsplit

_LINK = re.compile(rb"""(?:href|src|action)\s*=\s*["']([^"'#]*)""")
_CSRF = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]*"')
#: Pages no archive or snapshot is about: sign-in, the admin, static files.
_SKIP = ("/static/", "/admin/", "/accounts/", "/notifications/", "/account/")


def links(base: str, body: bytes) -> list[str]:
    """The site's own addresses a page links to (resolved against ``base``)."""
    found = []
    for raw in _LINK.findall(body):
        url = html.unescape(raw.decode("utf-8", "replace")).strip()
        if not url or url.startswith(("mailto:", "javascript:", "data:")):
            continue
        parts = urlsplit(urljoin(base, url))
        if parts.scheme not in ("", "http") or parts.netloc not in ("", "testserver"):
            continue
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if not path.startswith(_SKIP):
            found.append(path)
    return found


def comparable(body: bytes) -> object:
    """A response as compared: a zip by its members' names and bytes (its members'
    time stamps are when it was built), a page without its CSRF token."""
    if body[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            return sorted((i.filename, archive.read(i)) for i in archive.infolist())
    return _CSRF.sub(b"csrf", body)


def crawl(client, starts: Iterable[str], limit: int = 2000) -> dict[str, tuple]:  # noqa: ANN001
    """address -> (status, content type, comparable body) of every page reached."""
    seen: dict[str, tuple] = {}
    todo = list(starts)
    while todo and len(seen) < limit:
        url = todo.pop()
        if url in seen:
            continue
        response = client.get(url)
        body = (
            b"".join(response.streaming_content)
            if response.streaming
            else response.content
        )
        kind = response.get("Content-Type", "")
        seen[url] = (response.status_code, kind, comparable(body))
        if kind.startswith("text/html"):
            todo.extend(u for u in links(url, body) if u not in seen)
    return seen
