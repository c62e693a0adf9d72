"""A score rests on every file the scorer reads, inputs as well as gold (issue 41,
items 1 to 3), replayed through the production paths: the console's two-step upload
(web requests), the admin's inline delete, the scoring job; the concurrent
replacement on its own database connection, as a concurrent request would make it.
Each test failed on main b311bd9 (checked by running it there)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import Evaluation, Score, Submission, TestSet
from evalhub.competitions.services.data import datasets, taskdata
from evalhub.competitions.services.runs import scoring
from tests.competitions.test_admin import _change_form_data
from tests.concurrency import WAIT, in_thread
from tests.demo_world import add_test_set


def _fewer_source_terms(bucc_demo) -> bytes:  # noqa: ANN001
    """D1 without the source terms the gold does not use: the demo run's pairs on
    them are out of vocabulary now (dropped), so its false positives fall."""
    data = bucc_demo.test_sets[0]
    used = {line.split(b"\t")[0] for line in data.gold["gold"].splitlines() if line}
    terms = data.inputs["source_terms"].splitlines()
    return b"\n".join(t for t in terms if t in used) + b"\n"


def _offline(bucc_demo, run: bytes, **files: bytes) -> dict:  # noqa: ANN001
    """The offline scorer's metrics on the demo files with ``files`` replaced."""
    from tasks import registry

    task_type = registry.get("bilingual_term_alignment")
    data = bucc_demo.test_sets[0]
    settings = task_type.parse_settings(dict(bucc_demo.settings))
    inputs = task_type.parse_inputs({**data.inputs, **files}, settings)
    gold = task_type.parse_gold(data.gold, inputs, settings)
    parsed = task_type.parse_run(run, "run.tsv", inputs, settings)
    return dict(task_type.score(parsed, gold, inputs, settings).metrics)


def _fp(sub: Submission, test_set: TestSet) -> float:
    return Score.objects.get(submission=sub, test_set=test_set, metric="fp").value


def _rescoring_page(client, task) -> str:  # noqa: ANN001
    url = reverse("competitions:task-rescoring", args=[task.slug])
    return client.get(url).content.decode()


@pytest.mark.django_db
def test_replaced_inputs_rescore_the_runs_that_read_them(
    client,
    organiser,
    task,
    test_set,
    submit_run,
    demo_run,
    bucc_demo,
    django_capture_on_commit_callbacks,
):
    """Item 1. On main replacing D1 bumped no version and queued nothing: the
    preview told the organiser to "rescore them on the rescoring page", which said
    every run was up to date, and the run kept the false positives of the old D1."""
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    old_fp, new_fp = (
        _offline(bucc_demo, demo_run)["fp"],
        _offline(bucc_demo, demo_run, source_terms=_fewer_source_terms(bucc_demo))[
            "fp"
        ],
    )
    assert _fp(sub, test_set) == old_fp and new_fp < old_fp
    version = TestSet.objects.get(pk=test_set.pk).gold_version

    client.force_login(organiser)
    files = reverse("console:testset-files", args=[task.slug, test_set.pk])
    upload = SimpleUploadedFile("d1.txt", _fewer_source_terms(bucc_demo))
    draft = client.post(files, {"file_source_terms": upload})
    assert draft.status_code == 302, draft.content[:2000]
    preview = client.get(draft["Location"]).content.decode()
    # The preview lists the run as rescored (the same runs the change queues).
    assert "Runs that will be rescored (1)" in preview
    assert f"#{sub.pk}</a>" in preview
    assert "and rescore 1 run" in preview
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(draft["Location"]).status_code == 302
    assert TestSet.objects.get(pk=test_set.pk).gold_version == version + 1
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.QUEUED
    # The rescoring page agrees with the preview until the job has run...
    assert "1 run scored with other versions" in _rescoring_page(client, task)
    jobs.score_submission(sub.pk)
    # ... then the score is the current files' (the offline scorer agrees).
    assert _fp(sub, test_set) == new_fp
    assert "every run is up to date" in _rescoring_page(client, task)


@pytest.mark.django_db
def test_a_test_set_that_loses_its_gold_ranks_no_run_on_it(
    client,
    organiser,
    task,
    phase,
    test_set,
    submit_run,
    demo_run,
    bucc_demo,
    django_capture_on_commit_callbacks,
):
    """Item 2. On main deleting the gold of one of two test sets queued the runs,
    the rescore skipped that test set and its old evaluations stayed: the public
    board, the overall ranking and the exports ranked the run on deleted gold, and
    the rescoring page listed it for ever."""
    second = add_test_set(phase, bucc_demo, slug="second", visibility="public")
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    assert Evaluation.objects.filter(submission=sub).count() == 2
    board = reverse("competitions:leaderboard-json", args=[task.slug, phase.slug])
    assert _ranked(client.get(board)) == {"public": [sub.pk], "second": [sub.pk]}

    client.force_login(organiser)
    data = _change_form_data(second)
    gold = [f.role for f in second.files.order_by("pk")].index("gold")
    data[f"files-{gold}-DELETE"] = "on"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/admin/competitions/testset/{second.pk}/change/", data)
    assert response.status_code == 302, response.content[:2000]
    assert not second.files.filter(role="gold").exists()
    # At once: no evaluation, score or figure of any run on the test set.
    assert not Evaluation.objects.filter(test_set=second).exists()
    assert not Score.objects.filter(test_set=second).exists()
    jobs.score_submission(sub.pk)
    sub.refresh_from_db()
    assert sub.status == Submission.Status.SCORED
    assert list(sub.evaluations.values_list("test_set_id", flat=True)) == [test_set.pk]
    assert not Score.objects.filter(test_set=second).exists()
    client.logout()
    # The public board and its export rank the run on the test set it was scored on.
    assert _ranked(client.get(board)) == {"public": [sub.pk], "second": []}
    client.force_login(organiser)
    page = _rescoring_page(client, task)
    assert "scored with other versions" not in page
    assert page.count("every run is up to date") == 2


def _ranked(response) -> dict[str, list[int]]:  # noqa: ANN001
    """The leaderboard export's runs by test set."""
    assert response.status_code == 200
    return {
        t["test_set"]: [r["run"] for r in t["rows"]]
        for t in response.json()["test_sets"]
    }


@pytest.mark.django_db(transaction=True)
def test_inputs_replaced_while_the_run_is_scored_send_it_back_to_the_queue(
    submit_run, demo_run, test_set, bucc_demo, monkeypatch
):
    """Item 3. On main the worker read the old files' rows, the replacement
    (committed meanwhile) deleted the old file, and the run ended as a scorer
    failure that nothing queued again (the inputs bumped no version)."""
    sub = submit_run(demo_run)
    taskdata.clear_caches()
    load_inputs = taskdata.load_inputs
    replaced: list[bool] = []

    def replace() -> None:
        ts = TestSet.objects.get(pk=test_set.pk)
        datasets.store_file(
            test_set=ts,
            role="source_terms",
            filename="d1.txt",
            data=_fewer_source_terms(bucc_demo),
        )

    def loading(ts):  # noqa: ANN001, ANN202
        if not replaced:
            replaced.append(True)
            thread, errors = in_thread(replace)
            thread.join(WAIT)
            assert not errors, errors
        return load_inputs(ts)

    monkeypatch.setattr(taskdata, "load_inputs", loading)
    assert scoring.score_submission(submission_id=sub.pk) == "requeued"
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.QUEUED
    monkeypatch.setattr(taskdata, "load_inputs", load_inputs)
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    fewer = _fewer_source_terms(bucc_demo)
    assert _fp(sub, test_set) == _offline(bucc_demo, demo_run, source_terms=fewer)["fp"]
