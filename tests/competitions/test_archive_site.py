"""The static snapshot (``manage.py archive site``): complete and browsable
offline (every link resolves, ``http.server`` serves it), each page reads as the
live site reads to an anonymous visitor, and it holds no gold, no hidden run and
no score the visibility rule withholds (a private test set before reveal, the
Ladder's undecided runs)."""

from __future__ import annotations

import html
import io
import logging
import re
import threading
import urllib.error
import urllib.request
import zipfile
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from django.core.management import CommandError, call_command

from evalhub.competitions.models import (
    Score,
    SharedTask,
    Submission,
    TestSet,
    TestSetFile,
)
from evalhub.competitions.services.archive import site
from evalhub.competitions.services.boards import visibility
from tests import shared_world
from tests.competitions.archive_helpers import finished_campaign
from tests.competitions.crawl import comparable

pytestmark = pytest.mark.django_db

_ATTRIBUTE = re.compile(r"""\b(?:href|src|srcset|action)=["']([^"']*)["']""")


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The campaign and its snapshot, built once for the module (``shared_world``):
    the tests read them (a test's own snapshot goes to its ``tmp_path``)."""
    out = tmp_path_factory.mktemp("snapshot") / "site"

    def build() -> int:
        task = finished_campaign("sentence_alignment")
        call_command("archive", "site", task.slug, str(out), stdout=io.StringIO())
        return task.pk

    folder = tmp_path_factory.mktemp("archive-site") / "storage"
    for world in shared_world.kept(django_db_blocker, folder, build):
        yield {"world": world, "folder": out}


@pytest.fixture
def campaign(world, settings):  # noqa: ANN001, ANN201
    """The sentence-alignment demo: a public and a private (unrevealed) test set,
    the Ladder on, one run hidden."""
    root = world["world"].root
    shared_world.point_storage(settings, root, shared_world.fresh_cache_prefix())
    return SharedTask.objects.get(pk=world["world"].value)


@pytest.fixture
def folder(world, campaign) -> Path:  # noqa: ANN001
    """The campaign's snapshot (``manage.py archive site``)."""
    return world["folder"]


def _texts(folder: Path) -> dict[Path, str]:
    return {
        path: path.read_bytes().decode("utf-8", "replace")
        for path in folder.rglob("*")
        if path.is_file()
    }


def test_a_draft_task_has_no_snapshot(isolated_storage, tmp_path):  # noqa: ANN001
    """A campaign of its own (first in the module: before the shared world is
    built)."""
    task = finished_campaign("term_extraction")
    SharedTask.objects.filter(pk=task.pk).update(state=SharedTask.State.DRAFT)
    out = tmp_path / "site"
    with pytest.raises(CommandError, match="sees nothing of this task"):
        call_command("archive", "site", task.slug, str(out), stdout=io.StringIO())
    assert not out.exists()


def test_every_link_resolves_to_a_file_of_the_site(folder):  # noqa: ANN001
    pages = [p for p in folder.rglob("*.html")]
    assert len(pages) > 5
    for page in pages:
        for raw in _ATTRIBUTE.findall(page.read_text()):
            value = html.unescape(raw)
            if value.startswith(("http://", "https://", "mailto:", "data:", "#")):
                continue
            assert not value.startswith("/"), f"{page}: {value} is not relative"
            target = (page.parent / urlsplit(value).path).resolve()
            assert target.is_file(), f"{page.relative_to(folder)} -> {value}"


def test_http_server_serves_all_of_it(folder):  # noqa: ANN001
    """``python -m http.server -d folder``: every page reached from the index by
    its links answers, each with its type."""
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        seen: dict[str, str] = {}
        todo = [base + "index.html"]
        while todo:
            url = todo.pop()
            if url in seen:
                continue
            try:
                with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310
                    kind, body = response.headers["Content-Type"], response.read()
            except urllib.error.HTTPError as exc:
                pytest.fail(f"{url}: {exc.code}")
            seen[url] = kind
            if kind.startswith("text/html"):
                for raw in _ATTRIBUTE.findall(body.decode()):
                    value = html.unescape(raw)
                    if not value.startswith(
                        ("http://", "https://", "mailto:", "data:", "#")
                    ):
                        todo.append(urljoin(url, value).partition("#")[0])
    finally:
        server.shutdown()
        server.server_close()
    files = {p for p in folder.rglob("*") if p.is_file()}
    assert len(seen) == len(files)  # nothing written that no link reaches
    assert any(u.endswith(".svg") and k == "image/svg+xml" for u, k in seen.items())


def _visible_text(body: bytes) -> str:
    text = re.sub(rb"<[^>]*>", b" ", body).decode("utf-8", "replace")
    return " ".join(html.unescape(text).split())


def test_each_page_reads_as_the_live_site_to_an_anonymous_visitor(
    campaign,
    tmp_path,
    client,  # noqa: ANN001
):
    out = tmp_path / "direct"
    snapshot = site.write_site(task=campaign, folder=out)
    assert any("/leaderboard/" in url for url in snapshot.files)
    assert any(url.endswith("/data.csv") for url in snapshot.files)  # figure data
    assert any(url.endswith(".pdf") for url in snapshot.files)
    for url, name in snapshot.files.items():
        live = client.get(url, secure=True)
        body = b"".join(live.streaming_content) if live.streaming else live.content
        written = (out / name).read_bytes()
        if name.endswith(".html"):
            assert _visible_text(written) == _visible_text(body), url
        else:
            assert comparable(written) == comparable(body), url


def test_it_holds_no_gold_no_hidden_run_and_no_withheld_score(campaign, folder):  # noqa: ANN001
    texts = _texts(folder)
    everything = "\n".join(texts.values())
    raw = b"\n".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    for gold in TestSetFile.objects.filter(
        test_set__phase__task=campaign, private=True
    ):
        with gold.file.open("rb") as handle:
            content = handle.read()
        parts = [content]
        if zipfile.is_zipfile(io.BytesIO(content)):
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                parts += [archive.read(i) for i in archive.infolist() if not i.is_dir()]
        for part in parts:
            assert part.strip() and part.strip() not in raw, gold.role
        assert not list(folder.glob(f"testsets/{gold.test_set_id}/files/{gold.role}*"))
    hidden = Submission.objects.get(phase__task=campaign, hidden=True)
    assert not (folder / "runs" / str(hidden.pk)).exists()
    assert f"runs/{hidden.pk}/" not in everything
    shown_values, withheld_values = set(), set()
    for test_set in TestSet.objects.filter(phase__task=campaign):
        runs = list(Submission.objects.filter(phase=test_set.phase))
        shown = visibility.visible(
            viewer=visibility.PUBLIC, test_set=test_set, runs=runs
        )
        for score in Score.objects.filter(test_set=test_set, value__isnull=False):
            (shown_values if score.submission_id in shown else withheld_values).add(
                repr(score.value)
            )
    # A value a shown score has too proves nothing; a short one ("0.5") is found
    # in any figure: the search is for values of eight characters or more.
    withheld_values = {v for v in withheld_values - shown_values if len(v) >= 8}
    assert withheld_values and any(v in everything for v in shown_values)
    assert [v for v in withheld_values if v in everything] == []


def test_forms_are_not_crawled_and_lead_to_the_page_saying_why(
    campaign, tmp_path, caplog
):  # noqa: ANN001
    """The compare form's bare action answers 400 (no runs chosen): the snapshot
    does not ask for it, and in the copy the form leads to "Not in this copy"."""
    out = tmp_path / "site"
    with caplog.at_level(logging.WARNING, logger="django.request"):
        call_command("archive", "site", campaign.slug, str(out), stdout=io.StringIO())
    assert [r.getMessage() for r in caplog.records] == []
    actions = [
        (page, html.unescape(m))
        for page in out.rglob("*.html")
        for m in re.findall(r'<form[^>]*\baction="([^"]*)"', page.read_text())
    ]
    assert actions, "the copy has the compare form"
    for page, action in actions:
        assert (page.parent / action).resolve() == (out / "elsewhere.html").resolve()
