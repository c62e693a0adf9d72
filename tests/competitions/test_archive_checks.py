"""What ``manage.py archive import`` refuses of an archive that carries more than it
seems (issue 41, item 8): an SVG a browser would run code from, however it is
spelled (namespaced, entity-encoded, in a DTD), a line nested too deep for a
parser, rows that break a unique rule of the database. Each is a refusal naming
the member and line, with nothing imported; the project's own figures pass."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

from evalhub.competitions.services.archive import rules, svg
from tests.competitions.archive_helpers import TRACKS, finished_campaign
from tests.competitions.test_archive import _export, _import, _refused, _rewrite, _rows

pytestmark = pytest.mark.django_db

_BUILT: dict[str, bytes] = {}


@pytest.fixture
def archive(isolated_storage, tmp_path) -> bytes:  # noqa: ANN001
    """The two-track demo campaign's archive, written once for the module; each
    test imports it into an empty site."""
    if "tracks" not in _BUILT:
        task = finished_campaign(TRACKS)
        _BUILT["tracks"] = _export(task, tmp_path)
        task.delete()
        # the test's transaction rolls back: the next test starts empty
    data = _BUILT["tracks"]
    return data


def _figure(data: bytes) -> tuple[int, str]:
    """(line, stored name) of a run's figure in rows.jsonl."""
    return next(
        (i, r["fields"]["svg"])
        for i, r in enumerate(_rows(data), 1)
        if r["model"] == "competitions.artefact"
    )


def _with_rows(data: bytes, rows: list[dict]) -> bytes:
    body = "".join(json.dumps(r) + "\n" for r in rows).encode()
    return _rewrite(data, lambda name, old: body if name == "rows.jsonl" else old)


_SCRIPT = b"alert(document.domain)"
#: Ways to make a browser run code from a figure, or load something from
#: elsewhere into it; the first two passed the byte check this replaced.
HOSTILE = {
    "namespaced script": b'<s:script xmlns:s="http://www.w3.org/2000/svg">'
    + _SCRIPT
    + b"</s:script></svg>",
    "entity-encoded javascript: link": b'<a xlink:href="javascript&#58;'
    + _SCRIPT
    + b'"><rect width="99" height="99"/></a></svg>',
    "entity-encoded javascript: in a use": b'<use xlink:href="j&#97;vascript&#58;'
    + _SCRIPT
    + b'"/></svg>',
    "XHTML script": b'<h:script xmlns:h="http://www.w3.org/1999/xhtml">'
    + _SCRIPT
    + b"</h:script></svg>",
    "namespaced event handler": b'<g xmlns:e="urn:x" e:onclick="'
    + _SCRIPT
    + b'"/></svg>',
    "foreignObject": b"<foreignObject><p>hi</p></foreignObject></svg>",
    "animation setting a link": b'<animate attributeName="href" to="javascript:'
    + _SCRIPT
    + b'"/></svg>',
    "use of another file": b'<use xlink:href="https://example.org/x.svg#a"/></svg>',
    "CSS import": b"<style>@import url(https://example.org/x.css);</style></svg>",
}


def _spoiled(data: bytes, name: str, change) -> bytes:  # noqa: ANN001
    return _rewrite(
        data, lambda n, body: change(body) if n == f"files/{name}" else body
    )


@pytest.mark.parametrize("way", sorted(HOSTILE))
def test_a_figure_a_browser_would_run_is_refused(way, archive, tmp_path):  # noqa: ANN001
    line, name = _figure(archive)
    spoiled = _spoiled(archive, name, lambda b: b.replace(b"</svg>", HOSTILE[way]))
    message = _refused(spoiled, tmp_path)
    assert f"rows.jsonl, line {line}: files/{name}: not an SVG figure of ours" in (
        message
    )


@pytest.mark.parametrize(
    "head",
    [
        # a default attribute declared in the document type reaches every <svg>
        b'svg11.dtd" [<!ATTLIST svg onload CDATA "alert(1)">]>',
        b'svg11.dtd" [<!ENTITY x "&#60;script&#62;alert(1)&#60;/script&#62;">]>',
    ],
)
def test_a_figure_with_declarations_of_its_own_is_refused(head, archive, tmp_path):  # noqa: ANN001
    line, name = _figure(archive)
    spoiled = _spoiled(archive, name, lambda b: b.replace(b'svg11.dtd">', head, 1))
    assert f"line {line}: files/{name}: not an SVG figure" in _refused(
        spoiled, tmp_path
    )


def test_a_figure_under_another_name_is_checked_as_svg(archive, tmp_path):  # noqa: ANN001
    """The site serves a figure's ``svg`` field as SVG, whatever its file's name."""
    rows = _rows(archive)
    line, name = _figure(archive)
    other = name[: -len(".svg")] + ".figure"
    rows[line - 1]["fields"]["svg"] = other
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        hostile = zf.read(f"files/{name}").replace(
            b"</svg>", HOSTILE["namespaced script"]
        )
    data = _with_rows(archive, rows)
    with zipfile.ZipFile(buffer := io.BytesIO(data), "a") as zf:
        zf.writestr(f"files/{other}", hostile)
    message = _refused(buffer.getvalue(), tmp_path)
    assert f"line {line}: files/{other}: not an SVG figure of ours" in message


def test_the_projects_own_figures_are_accepted(archive, tmp_path):  # noqa: ANN001
    """Every SVG the demo campaign drew (boards, analyses, comparisons, the
    intervals' charts, narrow ones) passes the check, and the archive imports."""
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        figures = {n: zf.read(n) for n in zf.namelist() if n.endswith(".svg")}
    assert len(figures) > 10
    assert {n: svg.problem(b) for n, b in figures.items() if svg.problem(b)} == {}
    assert "imported" in _import(archive, tmp_path)


def test_the_check_reads_the_svg_as_a_browser_does():
    """Browser-free, on the checker itself: names with their namespace, values
    after their character references."""
    figure = (
        b'<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
        b'<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="10pt" height="10pt"'
        b' viewBox="0 0 10 10" xmlns="http://www.w3.org/2000/svg" version="1.1">'
        b'<defs><path id="m" d="M 0 0 L 1 1"/></defs><g clip-path="url(#c)">'
        b'<use xlink:href="#m" x="1" y="2" style="fill: #1f77b4"/></g></svg>'
    )
    assert svg.problem(figure) == ""
    for way, tail in HOSTILE.items():
        assert svg.problem(figure.replace(b"</svg>", tail)), way
    assert svg.problem(b"<svg").startswith("not well-formed")
    assert "processing instruction" in svg.problem(
        b'<?xml-stylesheet href="https://example.org/x.css"?>' + figure[55:]
    )


def test_a_line_nested_too_deep_is_refused(archive, tmp_path):  # noqa: ANN001
    """100,000 brackets crashed the import (RecursionError); a row nesting
    deeper than the limit is refused too, whatever the parser could read."""
    rows = _rows(archive)
    lines = [json.dumps(r).encode() for r in rows]
    lines[3] = b"[" * 100_000 + b"]" * 100_000
    deep: object = 1
    for _ in range(rules.MAX_NESTING):
        deep = [deep]
    score = next(i for i, r in enumerate(rows) if r["model"] == "competitions.score")
    lines[score] = json.dumps({**rows[score], "extra": deep}).encode()
    body = b"\n".join(lines) + b"\n"
    data = _rewrite(archive, lambda n, old: body if n == "rows.jsonl" else old)
    message = _refused(data, tmp_path)
    nesting = f"nests deeper than {rules.MAX_NESTING} levels"
    assert f"rows.jsonl, line 4: {nesting}" in message
    assert f"rows.jsonl, line {score + 1}: {nesting}" in message


def test_rows_breaking_a_unique_rule_are_refused(archive, tmp_path):  # noqa: ANN001
    """Two phases of the task with one slug: the IntegrityError traceback became
    a refusal naming the second line, before anything is written."""
    rows = _rows(archive)
    at = next(i for i, r in enumerate(rows) if r["model"] == "competitions.phase")
    top = max(r["pk"] for r in rows if r["model"] == "competitions.phase")
    rows.insert(at + 1, {**rows[at], "pk": top + 1})
    message = _refused(_with_rows(archive, rows), tmp_path)
    assert f"rows.jsonl, line {at + 2}: competitions.phase with task_id=" in message
    assert f"line {at + 1} has the same" in message


def test_a_rule_only_the_database_knows_stops_the_import_whole(
    archive,
    tmp_path,
    settings,  # noqa: ANN001
):
    """A conditional unique rule (a test set's figure of one key, without a track)
    is the database's: the import stops in its transaction with the row's line,
    no row and no file is left."""
    rows = _rows(archive)
    at = next(
        i
        for i, r in enumerate(rows)
        if r["model"] == "competitions.taskartefact" and r["fields"]["track"] is None
    )
    top = max(r["pk"] for r in rows if r["model"] == "competitions.taskartefact")
    rows.insert(at + 1, {**rows[at], "pk": top + 1})
    before = _stored(settings)
    message = _refused(_with_rows(archive, rows), tmp_path)
    assert _stored(settings) == before
    assert f"rows.jsonl, line {at + 2}: competitions.taskartefact {top + 1} breaks" in (
        message
    )
    assert "nothing was imported" in message


def _stored(settings) -> set[Path]:  # noqa: ANN001
    location = Path(settings.STORAGES["default"]["OPTIONS"]["location"])
    return {p for p in location.rglob("*") if p.is_file()}


def test_a_file_named_as_a_page_is_no_page_in_the_snapshot(archive, tmp_path):  # noqa: ANN001
    """A test set's file keeps the name it was given (``original_name``): one
    named ``terms.svg`` was typed as SVG, and the static snapshot, which writes
    each answer under the suffix of its type, made it a page that ran its script."""
    rows = _rows(archive)
    at = next(
        i
        for i, r in enumerate(rows)
        if r["model"] == "competitions.testsetfile" and not r["fields"]["private"]
    )
    rows[at]["fields"]["original_name"] = "terms.svg"
    stored = f"files/{rows[at]['fields']['file']}"
    hostile = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    data = _rewrite(
        _with_rows(archive, rows),
        lambda name, body: hostile if name == stored else body,
    )
    _import(data, tmp_path)
    slug = next(
        r["fields"]["slug"] for r in rows if r["model"] == "competitions.sharedtask"
    )
    out = tmp_path / "site"
    call_command("archive", "site", slug, str(out), stdout=io.StringIO())
    holding = [
        p for p in out.rglob("*") if p.is_file() and b"alert(1)" in p.read_bytes()
    ]
    assert holding, "the file is in the snapshot"
    assert [p.suffix for p in holding if p.suffix in (".svg", ".html", ".xml")] == []
