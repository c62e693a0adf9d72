"""A task's public face as plain files (``manage.py archive site SLUG out/``): the
task page, every board (each track), analyses, the ranking and significance
pages, figures (SVG/PNG/PDF) and their data, the exports, the package and the
fact sheets, with relative links, readable without server code or JavaScript and
served as they are by ``python -m http.server`` or any static host.

Each page is what the live site answers an anonymous visitor: it is requested
from the site's own views, in this process, without a session, so the one
visibility rule decides what it holds (no unreleased gold, no hidden run, nothing
the Ladder withheld, no private score before reveal) and nothing here decides it
again. Pages are reached by following links from the task page; a link to a page
of the task becomes a relative link to its file, a link elsewhere on the site
(sign-in, other tasks) loses its target, a link to another site is kept."""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.test import Client
from django.urls import Resolver404, resolve

from evalhub.competitions.models import SharedTask, Submission, TestSet

_ATTRIBUTE = re.compile(
    r"""\b(href|src|srcset|action|hx-get|hx-post)=(["'])(.*?)\2""", re.DOTALL
)
#: Requests a page makes to the server when JavaScript runs (a run's live status):
#: a static copy has no server to answer them.
_LIVE = ("hx-get", "hx-post")
#: Addresses the crawl does not follow: a form's action answers only with the
#: form's fields (the compare form's, bare, is a 400); the copy's forms lead to
#: the page saying what the copy does not hold.
_NOT_FOLLOWED = (*_LIVE, "action")
_SUFFIX = {
    "text/html": ".html",
    "text/csv": ".csv",
    "application/json": ".json",
    "text/plain": ".txt",
    "application/zip": ".zip",
    "application/pdf": ".pdf",
    "image/svg+xml": ".svg",
    "image/png": ".png",
    "text/css": ".css",
    "text/javascript": ".js",
    "application/javascript": ".js",
}
#: Suffixes an address may end with that name its type already (LaTeX included).
_KNOWN = {suffix[1:] for suffix in _SUFFIX.values()} | {"tex"}
#: Pages of the task an anonymous visitor can reach that are not about reading it.
_LEFT_OUT = {"competitions:task-register", "competitions:run-submit"}


class NothingPublic(Exception):
    """An anonymous visitor sees nothing of the task (a draft): no snapshot."""


@dataclass
class Snapshot:
    """What was written: address -> file (relative to the folder)."""

    files: dict[str, str] = field(default_factory=dict)
    left_out: set[str] = field(default_factory=set)


def write_site(*, task: SharedTask, folder: Path, limit: int = 20_000) -> Snapshot:
    """Write the task's public face into ``folder`` (created if missing);
    NothingPublic, writing nothing, for a task the public does not see."""
    scope = _Scope(task)
    client = Client(HTTP_HOST=_host())
    answers: dict[str, tuple[str, bytes]] = {}
    snapshot = Snapshot()
    todo = [task.get_absolute_url()]
    while todo and len(answers) < limit:
        url = todo.pop()
        if url in answers or url in snapshot.left_out:
            continue
        # As over HTTPS: a site that redirects plain HTTP answers it the same.
        response = client.get(url, secure=True)
        kind = response.get("Content-Type", "").split(";")[0].strip()
        if response.status_code != 200:
            snapshot.left_out.add(url)
            continue
        body = (
            b"".join(response.streaming_content)
            if response.streaming
            else response.content
        )
        answers[url] = (kind, body)
        snapshot.files[url] = _file_for(url, kind)
        if kind == "text/html":
            for link in _links(url, body.decode("utf-8", "replace")):
                if link not in answers and (scope.covers(link) or _static(link)):
                    todo.append(link)
    if task.get_absolute_url() not in answers:
        raise NothingPublic(
            f"{task.slug}: an anonymous visitor sees nothing of this task (a draft?)"
        )
    folder.mkdir(parents=True, exist_ok=True)
    for url, (kind, body) in answers.items():
        path = folder / snapshot.files[url]
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "text/html":
            body = _relative(url, body.decode("utf-8"), snapshot).encode("utf-8")
        path.write_bytes(body)
    start = snapshot.files[task.get_absolute_url()]
    (folder / "index.html").write_text(
        _INDEX.format(title=html.escape(task.title), start=start)
    )
    (folder / ELSEWHERE).write_text(
        _ELSEWHERE.format(title=html.escape(task.title), start=start)
    )
    return snapshot


#: Where a link to a page this copy does not hold (log in, sign up, another task)
#: leads: a page saying so, linking back to the task.
ELSEWHERE = "elsewhere.html"
_ELSEWHERE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="A static copy of {title}.">
<link rel="icon" href="data:,">
<title>Not in this copy · {title}</title></head>
<body><main><h1>Not in this copy</h1>
<p>This is a static copy of {title}: signing in, submitting and the other pages of
the site it was taken from are not part of it.</p>
<p><a href="{start}">Back to {title}</a></p></main></body></html>
"""

_INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="A static copy of {title}.">
<link rel="icon" href="data:,">
<meta http-equiv="refresh" content="0; url={start}"></head>
<body><p><a href="{start}">{title}</a></p></body></html>
"""


def _host() -> str:
    for host in settings.ALLOWED_HOSTS:
        if host and host != "*" and not host.startswith("["):
            return host.lstrip(".")
    return "localhost"


def _static(url: str) -> bool:
    return url.startswith(settings.STATIC_URL)


class _Scope:
    """The addresses that are about this task (its pages, runs, test sets and
    teams), by the names and arguments the site's URLs resolve to."""

    def __init__(self, task: SharedTask):
        self.slug = task.slug
        self.runs = set(
            Submission.objects.filter(phase__task=task).values_list("pk", flat=True)
        )
        self.test_sets = set(
            TestSet.objects.filter(phase__task=task).values_list("pk", flat=True)
        )

    def covers(self, url: str) -> bool:
        path = urlsplit(url).path
        try:
            match = resolve(path)
        except Resolver404:
            return False
        if match.view_name in _LEFT_OUT or path.startswith("/api/"):
            return False
        kwargs = match.kwargs
        if "slug" in kwargs:
            return kwargs["slug"] == self.slug
        if "pk" not in kwargs:
            return False
        if path.startswith("/runs/"):
            return kwargs["pk"] in self.runs
        return "testsets/" in path and kwargs["pk"] in self.test_sets


def _links(base: str, page: str) -> list[str]:
    found = []
    for name, _, raw in _ATTRIBUTE.findall(page):
        url = None if name in _NOT_FOLLOWED else _own(base, raw)
        if url is not None:
            found.append(url)
    return found


def _own(base: str, raw: str) -> str | None:
    """The site's own address a link names (path and query), or None."""
    value = html.unescape(raw).strip()
    if not value or value.startswith(("#", "mailto:", "javascript:", "data:")):
        return None
    parts = urlsplit(urljoin(base, value))
    if parts.scheme or parts.netloc:
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _file_for(url: str, kind: str) -> str:
    """Where an address is written: its path, ``index`` for a folder, the query
    folded into the name, the suffix its content type has (so any static host
    serves it with that type)."""
    parts = urlsplit(url)
    path = parts.path.lstrip("/")
    suffix = _SUFFIX.get(kind, "")
    if not path or path.endswith("/"):
        path += "index"
    stem, dot, existing = path.rpartition(".")
    has_suffix = bool(dot) and existing in _KNOWN
    if parts.query:
        query = re.sub(r"[^A-Za-z0-9_.-]+", "-", parts.query)
        path = f"{stem if has_suffix else path}--{query}"
        return path + (f".{existing}" if has_suffix else suffix)
    return path if has_suffix else path + suffix


def _relative(url: str, page: str, snapshot: Snapshot) -> str:
    """The page with each link to a written page made relative to its own file;
    a link to any other page of this site loses its target."""
    here = PurePosixPath(snapshot.files[url]).parent

    def rewrite(match: re.Match[str]) -> str:
        name, quote, raw = match.groups()
        value = html.unescape(raw).strip()
        target = _own(url, raw)
        if name in _LIVE:
            return f"data-{name}-elsewhere={quote}{raw}{quote}"
        if target is None:
            return match.group(0)
        fragment = value.partition("#")[2]
        if target in snapshot.files:
            relative = os.path.relpath(snapshot.files[target], here or ".")
            relative += f"#{fragment}" if fragment else ""
            return f"{name}={quote}{html.escape(relative)}{quote}"
        if urlsplit(value).path == "" and fragment:  # "#id" on the page itself
            return match.group(0)
        kept = f"data-{name}-elsewhere={quote}{raw}{quote}"
        if name in ("href", "action"):  # it leads somewhere: the page saying why
            elsewhere = os.path.relpath(ELSEWHERE, here or ".")
            return f"{name}={quote}{html.escape(elsewhere)}{quote} {kept}"
        return kept

    return _ATTRIBUTE.sub(rewrite, page)
