"""The lossless archive: a finished campaign exported, deleted and imported answers
every public page, export, figure, figure data, package and API call the same;
its accounts keep their user names only; a broken or foreign archive is refused
with its member and line, and nothing is created."""

from __future__ import annotations

import difflib
import io
import json
import re
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import CommandError, call_command

from evalhub.competitions.models import SharedTask, Submission, Team
from tasks import registry
from tests import shared_world
from tests.competitions.archive_helpers import (
    TRACKS,
    finished_campaign,
    organiser_package,
    public_face,
)

pytestmark = pytest.mark.django_db


def _export(task: SharedTask, tmp_path) -> bytes:  # noqa: ANN001
    path = tmp_path / "archive.zip"
    call_command("archive", "export", task.slug, str(path), stdout=io.StringIO())
    return path.read_bytes()


def _import(data: bytes, tmp_path) -> str:  # noqa: ANN001
    path = tmp_path / "import.zip"
    path.write_bytes(data)
    out = io.StringIO()
    call_command("archive", "import", str(path), stdout=out)
    return out.getvalue()


def _differences(before: dict, after: dict) -> list[str]:
    found = []
    for url in sorted(set(before) | set(after)):
        if before.get(url) != after.get(url):
            old, new = (
                str(x.get(url, "missing")).split("\\n") for x in (before, after)
            )
            found.append(
                url + "\n" + "\n".join(list(difflib.unified_diff(old, new))[:12])
            )
    return found


@pytest.mark.parametrize("kind", [*registry.slugs(), TRACKS])
def test_a_finished_campaign_comes_back_identical(
    kind, isolated_storage, client, tmp_path
):  # noqa: ANN001
    task = finished_campaign(kind)
    before = public_face(client, task)
    assert any("/runs/" in url for url in before)
    package = organiser_package(client, task)
    assert {status for status, _ in package.values()} == {200}
    data = _export(task, tmp_path)
    task.delete()
    assert not Submission.objects.exists()
    cache.clear()  # nothing drawn before the deletion is served again
    assert "imported" in _import(data, tmp_path)
    after = public_face(client, SharedTask.objects.get(slug=task.slug))
    assert _differences(before, after) == []
    imported = SharedTask.objects.get(slug=task.slug)
    assert _differences(package, organiser_package(client, imported)) == []


def _rows(data: bytes) -> list[dict]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [json.loads(line) for line in archive.read("rows.jsonl").splitlines()]


def _rewrite(data: bytes, change) -> bytes:  # noqa: ANN001
    """The archive with ``change(name, bytes) -> bytes | None`` applied to each
    member (None: left out)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(out, "w") as new:
        for info in old.infolist():
            body = change(info.filename, old.read(info))
            if body is not None:
                new.writestr(info.filename, body)
    return out.getvalue()


@pytest.fixture(scope="module")
def archived_world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The two-track campaign finished, exported and deleted (its accounts and teams
    stay), built once for the tests below: each reads the archive and imports it (or
    a spoiled copy) in its own transaction, rolled back after it (``shared_world``).
    The round trip above builds its own campaigns before this world is set up (the
    module's tests run in order)."""
    folder = tmp_path_factory.mktemp("archived")

    def build() -> tuple[bytes, str]:
        task = finished_campaign(TRACKS)
        data = _export(task, folder)
        task.delete()
        return data, task.slug

    yield from shared_world.kept(django_db_blocker, folder / "storage", build)


@pytest.fixture
def archived(archived_world, settings):  # noqa: ANN001, ANN201
    """The two-track campaign's archive, the task deleted: (bytes, slug)."""
    shared_world.point_storage(
        settings, archived_world.root, shared_world.fresh_cache_prefix()
    )
    return archived_world.value


def test_accounts_keep_their_user_name_only(archived):  # noqa: ANN001
    data, _ = archived
    accounts = [r for r in _rows(data) if r["model"] == "auth.user"]
    assert accounts and all(set(r["fields"]) == {"username"} for r in accounts)
    text = data.decode("latin-1")
    assert "pbkdf2" not in text and "@" not in "".join(json.dumps(r) for r in accounts)


def test_imported_accounts_have_no_address_and_no_password(archived, tmp_path):  # noqa: ANN001
    data, slug = archived
    user_model = get_user_model()
    user_model.objects.exclude(username="organiser").delete()
    Team.objects.all().delete()
    _import(data, tmp_path)
    members = user_model.objects.filter(teams__registrations__task__slug=slug)
    assert members.exists()
    assert all(not u.has_usable_password() and u.email == "" for u in members)


def _refused(data: bytes, tmp_path) -> str:  # noqa: ANN001
    with pytest.raises(CommandError) as caught:
        _import(data, tmp_path)
    assert not SharedTask.objects.exists()
    return str(caught.value)


def test_a_broken_line_is_refused_with_its_member_and_line(archived, tmp_path):  # noqa: ANN001
    data, _ = archived

    def spoil(name: str, body: bytes) -> bytes:
        if name != "rows.jsonl":
            return body
        lines = body.split(b"\n")
        lines[6] = b"{not json"
        lines[8] = lines[8].replace(b'"competitions.', b'"evil.')
        return b"\n".join(lines)

    message = _refused(_rewrite(data, spoil), tmp_path)
    assert "rows.jsonl, line 7: is not a JSON row" in message
    assert "rows.jsonl, line 9: model 'evil." in message


def test_a_reference_outside_the_archive_is_refused(archived, tmp_path):  # noqa: ANN001
    data, _ = archived
    rows = _rows(data)
    line = next(
        i for i, r in enumerate(rows, 1) if r["model"] == "competitions.submission"
    )
    rows[line - 1]["fields"]["phase"] = 999

    def spoil(name: str, body: bytes) -> bytes:
        return (
            "".join(json.dumps(r) + "\n" for r in rows).encode()
            if name == "rows.jsonl"
            else body
        )

    message = _refused(_rewrite(data, spoil), tmp_path)
    assert f"line {line}: phase refers to competitions.phase 999" in message


def test_a_missing_file_is_refused(archived, tmp_path):  # noqa: ANN001
    data, _ = archived
    gold = next(
        r["fields"]["file"] for r in _rows(data)
        if r["model"] == "competitions.testsetfile" and r["fields"]["private"]
    )  # fmt: skip
    leave_out = f"files/{gold}"
    message = _refused(
        _rewrite(data, lambda name, body: None if name == leave_out else body), tmp_path
    )
    assert f"{leave_out} is not in the zip" in message


def test_an_infinite_score_is_refused(archived, tmp_path):  # noqa: ANN001
    data, _ = archived
    lines = _rows(data)
    line = next(i for i, r in enumerate(lines, 1) if r["model"] == "competitions.score")

    def spoil(name: str, body: bytes) -> bytes:
        if name != "rows.jsonl":
            return body
        rows = body.split(b"\n")
        rows[line - 1] = re.sub(rb'"value": [^,}]+', b'"value": 1e999', rows[line - 1])
        return b"\n".join(rows)

    message = _refused(_rewrite(data, spoil), tmp_path)
    assert f"line {line}: is not a JSON row (1e999 is not a finite number)" in message


def test_an_archive_of_a_newer_format_is_refused(archived, tmp_path):  # noqa: ANN001
    data, _ = archived

    def newer(name: str, body: bytes) -> bytes:
        if name != "manifest.json":
            return body
        return json.dumps({**json.loads(body), "version": 99}).encode()

    assert "format version 99" in _refused(_rewrite(data, newer), tmp_path)


def test_a_task_on_the_site_is_never_overwritten(archived, tmp_path):  # noqa: ANN001
    data, slug = archived
    _import(data, tmp_path)
    with pytest.raises(CommandError) as caught:
        _import(data, tmp_path)
    assert "exists on this site" in str(caught.value)
    assert SharedTask.objects.filter(slug=slug).count() == 1


def test_a_run_caught_on_its_way_is_queued_again(archived, tmp_path):  # noqa: ANN001
    data, _ = archived
    rows = _rows(data)
    run = next(r for r in rows if r["model"] == "competitions.submission")
    run["fields"]["status"] = "scoring"
    run["fields"]["worker"] = "lost-worker"

    def spoil(name: str, body: bytes) -> bytes:
        return (
            "".join(json.dumps(r) + "\n" for r in rows).encode()
            if name == "rows.jsonl"
            else body
        )

    _import(_rewrite(data, spoil), tmp_path)
    again = Submission.objects.get(pk=run["pk"])
    assert again.status == Submission.Status.QUEUED and again.worker == ""


def test_an_archive_from_an_older_schema_imports_with_the_defaults(archived, tmp_path):  # noqa: ANN001
    """Written before tracks, per-track limits, board retractions and per-track
    figures existed (migrations 0007, 0012, 0016): the rows lack those fields and
    the per-track charts, the manifest says so."""
    data, slug = archived
    older = {
        "competitions.phase": {"limits_per_track"},
        "competitions.boardversion": {"retracted"},
        "competitions.submission": {"track"},
        "competitions.taskartefact": {"track"},
    }

    def spoil(name: str, body: bytes) -> bytes:
        if name == "manifest.json":
            manifest = json.loads(body)
            manifest["schema"]["competitions"] = "0006_submission_validating_state"
            return json.dumps(manifest).encode()
        if name != "rows.jsonl":
            return body
        rows = [json.loads(line) for line in body.splitlines()]
        rows = [
            r
            for r in rows
            if r["model"] not in ("competitions.track", "rankings.trackchart")
            # a track's own figures did not exist either
            and not (r["model"] == "competitions.taskartefact" and r["fields"]["track"])
        ]
        for row in rows:
            for key in older.get(row["model"], ()):
                row["fields"].pop(key, None)
        return "".join(json.dumps(r) + "\n" for r in rows).encode()

    _import(_rewrite(data, spoil), tmp_path)
    task = SharedTask.objects.get(slug=slug)
    phase = task.phases.get()
    assert not phase.limits_per_track and not phase.tracks.exists()
    assert Submission.objects.filter(phase=phase, track__isnull=True).count() == (
        Submission.objects.filter(phase=phase).count()
    )


def test_a_field_this_site_does_not_know_is_refused(archived, tmp_path):  # noqa: ANN001
    data, _ = archived
    rows = _rows(data)
    line = next(i for i, r in enumerate(rows, 1) if r["model"] == "competitions.phase")
    rows[line - 1]["fields"]["after_the_future"] = True

    def spoil(name: str, body: bytes) -> bytes:
        if name == "rows.jsonl":
            return "".join(json.dumps(r) + "\n" for r in rows).encode()
        return body

    message = _refused(_rewrite(data, spoil), tmp_path)
    assert f"line {line}: " in message and "after_the_future" in message


def test_an_archive_over_the_limits_is_refused_before_anything_is_read(
    archived,
    tmp_path,
    settings,  # noqa: ANN001
):
    data, _ = archived
    settings.ARCHIVE_MAX_MEMBERS = 3
    assert "members (limit 3)" in _refused(data, tmp_path)
    settings.ARCHIVE_MAX_MEMBERS = 200_000
    settings.ARCHIVE_MAX_TOTAL_BYTES = 1024
    assert "(limit 1,024)" in _refused(data, tmp_path)


def test_a_figure_with_a_script_is_refused(archived, tmp_path):  # noqa: ANN001
    """The site serves SVG figures from its own origin: none may run code."""
    data, _ = archived
    svg = next(
        r["fields"]["svg"] for r in _rows(data)
        if r["model"] == "competitions.artefact"
    )  # fmt: skip

    def spoil(name: str, body: bytes) -> bytes:
        if name == f"files/{svg}":
            return body.replace(b"</svg>", b"<script>alert(1)</script></svg>")
        return body

    assert "not an SVG figure of ours: an element <script>" in _refused(
        _rewrite(data, spoil), tmp_path
    )
