"""The console's two-step upload: every problem by file and line and nothing kept;
a preview of what was understood; replacing gold shows the runs to rescore, bumps
the gold version and rescores them on confirmation."""

from __future__ import annotations

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse
from django.utils.html import escape

from evalhub.competitions import jobs
from evalhub.competitions.models import Submission, TestSet, TestSetFile
from evalhub.competitions.services import test_data
from evalhub.competitions.services.data import drafts

pytestmark = pytest.mark.django_db


def _files_url(task, ts) -> str:  # noqa: ANN001
    return reverse("console:testset-files", args=[task.slug, ts.pk])


def _upload(client, task, ts, **files):  # noqa: ANN001, ANN003, ANN202
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = {
        f"file_{role}": SimpleUploadedFile(name, content)
        for role, (name, content) in files.items()
    }
    return client.post(_files_url(task, ts), data)


def _area_files() -> list[str]:
    out = []
    try:
        dirs, _ = default_storage.listdir(drafts.AREA)
    except FileNotFoundError:
        return out
    stack = [f"{drafts.AREA}/{d}" for d in dirs]
    while stack:
        folder = stack.pop()
        sub, files = default_storage.listdir(folder)
        stack += [f"{folder}/{d}" for d in sub]
        out += [f"{folder}/{f}" for f in files]
    return out


def test_one_field_per_role_named_by_the_task_type(client, organiser, task, test_set):
    client.force_login(organiser)
    page = client.get(_files_url(task, test_set)).content.decode()
    for role in task.type.input_roles + task.type.gold_roles:
        assert f'name="file_{role.key}"' in page
        assert role.label in page and escape(role.help) in page
    assert page.count('type="file"') == 3
    assert "hidden gold, organisers only" in page


def test_broken_gold_lists_every_problem_by_file_and_line(
    client, organiser, task, test_set, bucc_demo
):
    client.force_login(organiser)
    good = bucc_demo.test_sets[0].gold["gold"]
    lines = good.decode().splitlines(keepends=True)
    broken = (
        "".join(lines[:2])
        + "no tab here\n"
        + "".join(lines[2:4])
        + "also without a tab\n"
    )
    stored = TestSetFile.objects.get(test_set=test_set, role="gold").sha256
    response = _upload(client, task, test_set, gold=("my-gold.tsv", broken.encode()))
    assert response.status_code == 422
    page = response.content.decode()
    assert "Nothing was stored: 2 problems" in page
    assert "my-gold.tsv, line 3:" in page
    assert "my-gold.tsv, line 6:" in page
    # Nothing kept: no draft, the stored gold unchanged.
    assert _area_files() == []
    assert TestSetFile.objects.get(test_set=test_set, role="gold").sha256 == stored


def test_every_kind_of_gold_problem_is_reported_together(
    client, organiser, task, test_set, bucc_demo
):
    """A line without a tab and a pair whose source term is not in the source term
    list: both reported by file and line in one answer (the check used to stop at
    the first kind, the bad lines)."""
    client.force_login(organiser)
    lines = bucc_demo.test_sets[0].gold["gold"].decode().splitlines(keepends=True)
    broken = (
        "".join(lines[:2])
        + "no tab here\n"
        + "".join(lines[2:4])
        + "zzz-not-a-source-term\t"
        + lines[0].split("\t")[1]
    )
    stored = TestSetFile.objects.get(test_set=test_set, role="gold").sha256
    response = _upload(client, task, test_set, gold=("my-gold.tsv", broken.encode()))
    assert response.status_code == 422
    page = response.content.decode()
    assert "Nothing was stored: 2 problems" in page
    assert "my-gold.tsv, line 3:" in page and "no tab" in page
    assert "my-gold.tsv, line 6:" in page
    assert "is not in the source term list" in page
    assert _area_files() == []
    assert TestSetFile.objects.get(test_set=test_set, role="gold").sha256 == stored


def test_preview_then_replace_gold_rescores_the_runs(
    client, organiser, task, test_set, submit_run, demo_run, bucc_demo,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    client.force_login(organiser)
    lines = bucc_demo.test_sets[0].gold["gold"].splitlines(keepends=True)
    smaller = b"".join(lines[40:])
    response = _upload(client, task, test_set, gold=("gold-v2.tsv", smaller))
    assert response.status_code == 302
    token = response["Location"].rstrip("/").rsplit("/", 1)[-1]
    page = client.get(response["Location"]).content.decode()
    # Counts before and after, the runs to rescore, a confirmation button.
    assert "gold pairs" in page
    assert f">{len(lines)}<" in page and f">{len(lines) - 40}<" in page
    assert "Runs that will be rescored (1)" in page
    assert f"#{sub.pk}</a> {sub.team.name}" in page
    assert "Store the gold and rescore 1 run" in page
    # Still the old gold: the draft sits in the temporary area only.
    version = test_set.gold_version
    test_set.refresh_from_db()
    assert test_set.gold_version == version
    assert len(_area_files()) == 1
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(response["Location"])
    assert done.status_code == 302
    test_set.refresh_from_db()
    assert test_set.gold_version == version + 1
    stored = TestSetFile.objects.get(test_set=test_set, role="gold")
    assert stored.original_name == "gold-v2.tsv"
    with stored.file.open("rb") as handle:
        assert handle.read() == smaller
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.QUEUED
    assert _area_files() == []
    # The draft is gone: confirming twice is "not found".
    assert client.post(response["Location"]).status_code == 404
    with pytest.raises(drafts.DraftGone):
        drafts.load(test_set_id=test_set.pk, user_id=organiser.pk, token=token)


def test_discard_and_a_stale_draft(client, organiser, task, test_set, bucc_demo):
    client.force_login(organiser)
    data = bucc_demo.test_sets[0].gold["gold"]
    first = _upload(client, task, test_set, gold=("a.tsv", data))["Location"]
    token = first.rstrip("/").rsplit("/", 1)[-1]
    assert client.post(first + "discard/").status_code == 302
    assert _area_files() == []
    assert client.get(first).status_code == 404
    # A draft checked against files that changed since is refused.
    second = _upload(client, task, test_set, gold=("b.tsv", data))["Location"]
    assert token not in second
    lines = data.splitlines(keepends=True)
    from evalhub.competitions.services.data import datasets

    datasets.store_file(
        test_set=test_set, role="gold", filename="other.tsv", data=b"".join(lines[1:])
    )
    response = client.post(second, follow=True)
    assert "changed since this upload was checked" in response.content.decode()
    assert (
        TestSetFile.objects.get(test_set=test_set, role="gold").original_name
        == "other.tsv"
    )
    # So is one checked with other task settings.
    third = _upload(client, task, test_set, gold=("c.tsv", data))["Location"]
    task.task_settings = {**task.task_settings, "cap_factor": 2.0}
    task.save(update_fields=["task_settings"])
    response = client.post(third, follow=True)
    assert "or the task settings changed" in response.content.decode()
    assert (
        TestSetFile.objects.get(test_set=test_set, role="gold").original_name
        == "other.tsv"
    )


def test_a_new_test_set_gets_inputs_and_gold_in_one_upload(
    client, organiser, task, phase, bucc_demo
):
    client.force_login(organiser)
    response = client.post(
        reverse("console:testset-create", args=[task.slug]),
        {"phase": phase.pk, "name": "Test (private)", "slug": "", "visibility": "private",
         "counts_for_ranking": "on"},
    )  # fmt: skip
    ts = TestSet.objects.get(phase=phase, slug="test-private")
    assert response["Location"] == _files_url(task, ts)
    assert ts.visibility == "private" and ts.order == 0
    data = bucc_demo.test_sets[0]
    # Gold alone: the inputs it is checked against are missing.
    only_gold = _upload(client, task, ts, gold=("g.tsv", data.gold["gold"]))
    assert only_gold.status_code == 422
    assert "g.tsv: the test set has no Source terms (D1), Target terms (D2) yet" in (
        only_gold.content.decode()
    )
    response = _upload(
        client, task, ts,
        source_terms=("d1.txt", data.inputs["source_terms"]),
        target_terms=("d2.txt", data.inputs["target_terms"]),
        gold=("g.tsv", data.gold["gold"]),
    )  # fmt: skip
    page = client.get(response["Location"]).content.decode()
    assert "nothing (new)" in page and "Store the files" in page
    assert "Runs that will be rescored" not in page
    client.post(response["Location"])
    assert {f.role: f.private for f in ts.files.all()} == {
        "source_terms": False, "target_terms": False, "gold": True,
    }  # fmt: skip
    ts.refresh_from_db()
    assert ts.gold_version == 1  # v0: no gold yet; each gold file stored adds one


def test_large_files_are_parsed_in_a_child_under_limits(
    settings, organiser, task, test_set, bucc_demo
):
    """Above the inline limit the parse runs in a sandboxed child: the same
    problems come back, and a parse that needs more CPU time than allowed is a
    problem of the file, not a stuck request."""
    settings.INLINE_VALIDATION_BYTES = 0
    data = bucc_demo.test_sets[0].gold["gold"]
    draft = test_data.stage(
        test_set=test_set,
        user=organiser,
        uploads=[test_data.Upload("gold", "g.tsv", data)],
    )
    assert dict(draft.after.counts)["gold pairs"] == len(data.splitlines())
    with pytest.raises(test_data.UploadRejected) as rejected:
        test_data.stage(
            test_set=test_set,
            user=organiser,
            uploads=[test_data.Upload("gold", "bad.tsv", data + b"one column\n")],
        )
    [problem] = rejected.value.problems
    assert (problem.file, problem.line) == ("bad.tsv", len(data.splitlines()) + 1)


def test_a_zip_bomb_is_refused_before_parsing(organiser, task, test_set):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("gold.tsv", b"a\tb\n" * (40 * 1024 * 1024 // 4))
    with pytest.raises(test_data.UploadRejected) as rejected:
        test_data.stage(
            test_set=test_set,
            user=organiser,
            uploads=[test_data.Upload("gold", "bomb.zip", buffer.getvalue())],
        )
    [problem] = rejected.value.problems
    assert problem.file == "bomb.zip" and "zip" in problem.message


def test_expired_drafts_leave_no_files(
    organiser, django_user_model, task, test_set, bucc_demo
):
    co = django_user_model.objects.create_user("co", is_staff=True)
    task.organisers.add(co)
    data = bucc_demo.test_sets[0].gold["gold"]
    upload = [test_data.Upload("gold", "g.tsv", data)]
    old = test_data.stage(test_set=test_set, user=co, uploads=upload)
    kept = test_data.stage(test_set=test_set, user=organiser, uploads=upload)
    assert len(_area_files()) == 2
    # The co-organiser's draft expires in the cache; the next upload sweeps its file.
    from django.core.cache import cache

    cache.delete(drafts._key(test_set.pk, co.pk, old.token))
    newer = test_data.stage(test_set=test_set, user=organiser, uploads=upload)
    assert _area_files() == [newer.files[0].path]
    assert kept.token != newer.token


def test_a_zipped_gold_names_the_zip_and_its_member(organiser, isolated_storage):
    """Sentence alignment: the reference alignments are a zip of ``<doc>.align``
    files; a problem names the uploaded zip, the member and the line."""
    import io
    import zipfile
    from datetime import timedelta

    from django.utils import timezone

    from evalhub.competitions.models import Phase, SharedTask
    from evalhub.competitions.services.data import datasets
    from tasks import registry
    from tests.zips import zip_bytes

    demo = registry.get("sentence_alignment").demo(0).test_sets[0]
    task = SharedTask.objects.create(
        slug="align", title="Align", task_type="sentence_alignment"
    )
    now = timezone.now()
    phase = Phase.objects.create(
        task=task, slug="p", name="P", opens_at=now, closes_at=now + timedelta(days=1)
    )
    ts = TestSet.objects.create(phase=phase, slug="t", name="T")
    datasets.store_file(
        test_set=ts,
        role="documents",
        filename="docs.zip",
        data=demo.inputs["documents"],
    )
    members = zipfile.ZipFile(io.BytesIO(demo.gold["gold"]))
    files = {n: members.read(n) for n in members.namelist()}
    first = sorted(files)[0]
    files[first] = files[first] + b"[0]:[999999]\n"
    n_line = len(files[first].decode().splitlines())
    with pytest.raises(test_data.UploadRejected) as rejected:
        test_data.stage(
            test_set=ts,
            user=organiser,
            uploads=[test_data.Upload("gold", "refs.zip", zip_bytes(files))],
        )
    [problem] = rejected.value.problems
    assert (problem.file, problem.line) == (f"refs.zip:{first}", n_line)
    draft = test_data.stage(
        test_set=ts,
        user=organiser,
        uploads=[test_data.Upload("gold", "refs.zip", demo.gold["gold"])],
    )
    counts = dict(draft.after.counts)
    assert counts["documents"] == len(files)
    assert counts["bisegments"] == sum(
        len([x for x in c.decode().splitlines() if x.strip()])
        for c in (members.read(n) for n in members.namelist())
    )
