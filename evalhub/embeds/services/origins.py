"""The origins allowed to frame a task's embeds: what an organiser may enter
(``parse``), the ``Content-Security-Policy`` an embed is served with
(``policy``), and the stored list (``allowed``, ``save``).

An origin is ``scheme://host[:port]``: ``http`` or ``https``, a host name, an
IPv4 address or a bracketed IPv6 address, an optional port. The one wildcard
accepted is the one CSP defines for host sources and that stays within a site
the organiser names: ``https://*.example.org`` (any subdomain of example.org).
A bare ``*``, a scheme alone (``https:``), a keyword (``'self'``), a wildcard
port, a path, a query or user information are refused: each would let pages
nobody chose frame the board."""

from __future__ import annotations

import ipaddress
import re

from evalhub import cache as shared_cache
from evalhub.competitions.models import SharedTask
from evalhub.embeds.models import EmbedSettings

#: At most this many origins per task (a header stays short).
MAX_ORIGINS = 20
_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
_HOST = re.compile(rf"^(\*\.)?{_LABEL}(\.{_LABEL})*$")
_ORIGIN = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?P<rest>.+)$")
#: Seconds the stored origins are kept in the cache (``save`` forgets them).
TIMEOUT = 600


class Invalid(ValueError):
    """What is wrong with the organiser's text: one plain-text message a line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def parse(text: str) -> list[str]:
    """The origins in ``text`` (one a line, blank lines ignored), normalised
    (lower case, no trailing slash) and without repeats; ``Invalid`` lists every
    line that is not an origin."""
    found: list[str] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.strip()
        if not entry:
            continue
        try:
            origin = _origin(entry)
        except ValueError as exc:
            problems.append(f"Line {number}: {exc}")
            continue
        if origin not in found:
            found.append(origin)
    if len(found) > MAX_ORIGINS:
        problems.append(f"At most {MAX_ORIGINS} origins, not {len(found)}.")
    if problems:
        raise Invalid(problems)
    return found


def _origin(entry: str) -> str:
    shown = entry if len(entry) <= 80 else entry[:77] + "..."
    match = _ORIGIN.match(entry.lower().rstrip("/"))
    if match is None:
        raise ValueError(
            f"{shown!r} is not an origin: write scheme://host or "
            "scheme://host:port, e.g. https://workshop.example.org"
        )
    scheme, rest = match["scheme"], match["rest"]
    if scheme not in ("http", "https"):
        raise ValueError(
            f"{shown!r}: only http:// and https:// pages can frame a board"
        )
    if any(c in rest for c in "/?#@\\ "):
        raise ValueError(
            f"{shown!r}: an origin has no path, query, fragment or user name"
        )
    host, port = _split_port(rest, shown)
    if not host.isascii():  # an international name, as browsers send it
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ValueError(f"{shown!r}: not a host name") from None
    if host.startswith("[") and host.endswith("]"):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise ValueError(f"{shown!r}: not an IPv6 address") from None
    elif not _HOST.match(host) or (host.startswith("*.") and "." not in host[2:]):
        raise ValueError(
            f"{shown!r}: not a host name (a wildcard only as the first label of "
            "a domain, e.g. https://*.example.org)"
        )
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def _split_port(rest: str, shown: str) -> tuple[str, int | None]:
    host, colon, port = rest.rpartition(":")
    if not colon or rest.endswith("]"):
        return rest, None
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{shown!r}: a port is a number from 1 to 65535")
    return host, int(port)


def policy(origins: list[str]) -> str:
    """The ``Content-Security-Policy`` of an embed: nothing loaded but its own
    inline style, no script, framed only by ``origins`` (none: by no page)."""
    ancestors = " ".join(origins) if origins else "'none'"
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
        f"base-uri 'none'; form-action 'none'; frame-ancestors {ancestors}"
    )


def _key(task_id: int) -> str:
    return f"embeds:origins:{task_id}"


def allowed(*, task: SharedTask | int) -> list[str]:
    """The task's allowed origins (none saved: none), kept in the cache."""
    task_id = task if isinstance(task, int) else task.pk

    def read() -> list[str]:
        text = (
            EmbedSettings.objects.filter(task_id=task_id)
            .values_list("origins", flat=True)
            .first()
        )
        return [line for line in (text or "").splitlines() if line]

    return shared_cache.kept(_key(task_id), read, TIMEOUT)


def forget(*, task_id: int) -> None:
    """Drop the task's cached origins (its row changed or was deleted)."""
    shared_cache.forget([_key(task_id)])


def save(*, task: SharedTask, text: str) -> list[str]:
    """Store the origins in ``text`` (``parse``; ``Invalid`` stores nothing)."""
    found = parse(text)
    # The row's post_save forgets the cached copy (``receivers``).
    EmbedSettings.objects.update_or_create(
        task=task, defaults={"origins": "\n".join(found)}
    )
    return found
