"""A run's life (``services/lifecycle.py``): each sequence of issue 28 replayed
through the production paths (the submit service, the scoring job, the sweeper,
gold stored as the console stores it), with concurrent changes made on their own
database connection, as a concurrent request would."""

from __future__ import annotations

import ast
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from evalhub.competitions.models import Evaluation, Score, Submission, TestSet
from evalhub.competitions.services.data import datasets, taskdata
from evalhub.competitions.services.runs import (
    lifecycle,
    scoring,
    submit,
    sweeper,
    validation,
)
from tests.concurrency import WAIT, in_thread

ROOT = Path(__file__).resolve().parents[2]


def _smaller_gold(bucc_demo) -> bytes:  # noqa: ANN001
    gold = bucc_demo.test_sets[0].gold["gold"]
    return b"\n".join(gold.splitlines()[:10]) + b"\n"


def _ap(sub: Submission, test_set: TestSet) -> float | None:
    return Score.objects.get(submission=sub, test_set=test_set, metric="ap").value


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("when", ["before", "after"])
def test_gold_replaced_while_the_run_is_scored_is_never_kept_as_current(
    when, submit_run, demo_run, test_set, bucc_demo, monkeypatch
):
    """On main the worker read the test sets (gold v0) first; a replacement
    confirmed while it scored re-queued only runs already scored, so the run ended
    ``scored`` on the old gold for good (or on the new files labelled v0)."""
    sub = submit_run(demo_run)
    new_gold = _smaller_gold(bucc_demo)
    load_gold = taskdata.load_gold
    replaced: list[bool] = []

    def replace() -> None:
        ts = TestSet.objects.get(pk=test_set.pk)
        datasets.store_file(test_set=ts, role="gold", filename="g2.tsv", data=new_gold)

    def loading(ts):  # noqa: ANN001, ANN202
        # An organiser confirms new gold while the worker loads the gold: before
        # it reads the files, or once it has read the old ones.
        if when == "after":
            gold = load_gold(ts)
        if not replaced:
            replaced.append(True)
            thread, errors = in_thread(replace)
            thread.join(WAIT)
            assert not errors, errors
        return gold if when == "after" else load_gold(ts)

    monkeypatch.setattr(taskdata, "load_gold", loading)
    assert scoring.score_submission(submission_id=sub.pk) == "requeued"
    sub.refresh_from_db()
    assert sub.status == Submission.Status.QUEUED
    monkeypatch.setattr(taskdata, "load_gold", load_gold)
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    test_set.refresh_from_db()
    evaluation = Evaluation.objects.get(submission=sub, test_set=test_set)
    assert evaluation.gold_version == test_set.gold_version
    # The score is the new gold's: the offline scorer on the same files agrees.
    task_type = test_set.phase.task.type
    ts_data = bucc_demo.test_sets[0]
    settings = task_type.parse_settings({})
    inputs = task_type.parse_inputs(ts_data.inputs, settings)
    gold = task_type.parse_gold({"gold": new_gold}, inputs, settings)
    report = task_type.score(
        task_type.parse_run(demo_run, "r", inputs, settings), gold, inputs, settings
    )
    assert _ap(sub, test_set) == pytest.approx(report.metrics["ap"], abs=1e-12)


@pytest.mark.django_db
def test_a_test_set_added_after_a_run_was_scored_scores_it_there_too(
    submit_run, demo_run, test_set, bucc_demo
):
    """On main a run scored before a test set was added was never scored on it and
    dropped out of the overall ranking. The test set being set up (no gold yet)
    disturbs no run; its gold scores them on it."""
    sub = submit_run(demo_run)
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    added = TestSet.objects.create(phase=test_set.phase, slug="extra", name="Extra")
    for role, data in {**bucc_demo.test_sets[0].inputs}.items():
        datasets.store_file(test_set=added, role=role, filename=role, data=data)
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.SCORED
    datasets.store_file(
        test_set=added, role="gold", filename="gold", data=_smaller_gold(bucc_demo)
    )
    sub.refresh_from_db()
    assert sub.status == Submission.Status.QUEUED
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    assert set(sub.evaluations.values_list("test_set_id", flat=True)) == {
        test_set.pk,
        added.pk,
    }


@pytest.mark.django_db
def test_deleting_a_gold_file_rescores_and_bumps_the_version(
    submit_run, demo_run, test_set
):
    """On main deleting a gold file rescored nothing and bumped no version: the
    scores computed on it stayed as if current."""
    sub = submit_run(demo_run)
    scoring.score_submission(submission_id=sub.pk)
    version = TestSet.objects.get(pk=test_set.pk).gold_version
    test_set.files.get(role="gold").delete()
    assert TestSet.objects.get(pk=test_set.pk).gold_version == version + 1
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.QUEUED
    # No gold now: the run fails as an infrastructure error, not as current scores,
    # and new gold scores it again.
    assert scoring.score_submission(submission_id=sub.pk) == "failed"


@pytest.mark.django_db(transaction=True)
def test_the_ladder_history_is_the_commit_order(
    phase, participant, team, test_set, demo_run, monkeypatch
):
    """On main a run was dated when its request started: a slow upload started
    before a fast one of the same team, committed after it, came first in the
    team's history, so the Ladder's replay released it after the other was shown."""
    parse = validation.parse_problems
    slow_started, fast_done = threading.Event(), threading.Event()

    def parsing(*, phase, data, filename, limited):  # noqa: ANN001, ANN202
        if filename == "slow.tsv":
            slow_started.set()
            assert fast_done.wait(WAIT)
        return parse(phase=phase, data=data, filename=filename, limited=limited)

    monkeypatch.setattr(validation, "parse_problems", parsing)
    made: dict[str, int] = {}

    def upload(name: str) -> None:
        made[name] = submit.submit_run(
            phase=phase,
            user=participant,
            filename=name,
            data=demo_run,
            method_name=name,
        ).pk

    slow, errors = in_thread(lambda: upload("slow.tsv"))
    assert slow_started.wait(WAIT)
    upload("fast.tsv")
    fast_done.set()
    slow.join(WAIT)
    assert not errors, errors
    runs = Submission.objects.filter(team=team).order_by("created_at", "pk")
    assert [r.method_name for r in runs] == ["fast.tsv", "slow.tsv"]


@pytest.mark.django_db
def test_a_test_set_without_files_in_an_open_phase_neither_breaks_nor_blocks_runs(
    client, participant, team, phase, test_set, demo_run
):
    """On main a small upload got HTTP 500 and a large one stayed ``validating``
    for ever, counted against the team's limits: a test set without files in an
    open phase. Now the run is checked and scored on the test sets that are ready;
    a phase with none ready refuses runs, saying why."""
    empty = TestSet.objects.create(phase=phase, slug="empty", name="Empty")
    client.force_login(participant)
    url = f"/tasks/{phase.task.slug}/{phase.slug}/submit/"
    response = client.post(url, {"method_name": "m", "run": _upload("r.tsv", demo_run)})
    assert response.status_code == 302
    sub = Submission.objects.get()
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    assert list(sub.evaluations.values_list("test_set_id", flat=True)) == [test_set.pk]
    # Only test sets without files: refused with a message, nothing counted.
    test_set.delete()
    response = client.post(url, {"method_name": "m", "run": _upload("r.tsv", demo_run)})
    assert response.status_code in (403, 422)
    assert "not ready for submissions" in response.content.decode()
    assert Submission.objects.filter(phase=phase).count() == 1
    assert empty.pk


def _upload(name: str, data: bytes):  # noqa: ANN202
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, data)


@pytest.mark.django_db
def test_validation_has_an_attempt_cap_and_a_terminal_state(
    submit_run, demo_run, settings, monkeypatch
):
    """On main a ``validating`` run whose job never finished was re-sent for ever."""
    settings.INLINE_VALIDATION_BYTES = 1  # every run is checked by a worker
    sent: list[int] = []
    monkeypatch.setattr("evalhub.competitions.queue.enqueue_validation", sent.append)
    sub = submit_run(demo_run)
    assert sub.status == Submission.Status.VALIDATING
    now = timezone.now()
    for sweep in range(1, settings.VALIDATION_MAX_ATTEMPTS + 1):
        now += timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER + 1)
        sweeper.sweep(now=now)
        status = Submission.objects.get(pk=sub.pk).status
        if sweep < settings.VALIDATION_MAX_ATTEMPTS:
            assert status == Submission.Status.VALIDATING
    sub.refresh_from_db()
    assert sub.status == Submission.Status.REJECTED
    assert "could not be checked" in sub.failure_message
    assert len(sent) == settings.VALIDATION_MAX_ATTEMPTS - 1
    # Not counted against the limits.
    left = submit.allowance(phase=sub.phase, team=sub.team)
    assert left.total_left == sub.phase.total_limit


def test_the_transition_table_refuses_what_it_does_not_list():
    with pytest.raises(lifecycle.TransitionRefused):
        lifecycle.new(status=Submission.Status.SCORED)
    with pytest.raises(lifecycle.TransitionRefused):
        lifecycle._check([Submission.Status.REJECTED], Submission.Status.QUEUED)  # noqa: SLF001


# --- one writer ---------------------------------------------------------------------
#: Models with a status of their own (a registration, an invitation).
_OTHER_STATUSES = ("Registration", "Invitation", "registration", "invitation")


def _status_writes(source: str) -> list[int]:
    """Lines of ``source`` that write a run's status: an ``update``/``create``/
    constructor call with ``status=`` (in a module that knows runs, unless it is
    about another model with a status), or an assignment to ``.status`` of a run."""
    tree = ast.parse(source)
    knows_runs = "Submission" in source
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if "status" not in {k.arg for k in node.keywords}:
                continue
            func = ast.unparse(node.func)
            value = ast.unparse(
                next(k.value for k in node.keywords if k.arg == "status")
            )
            writes = func.endswith((".update", ".create", ".get_or_create")) or (
                func.split(".")[-1] == "Submission"
            )
            other = any(name in func + value for name in _OTHER_STATUSES)
            if writes and knows_runs and not other:
                lines.append(node.lineno)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                text = ast.unparse(target)
                if (
                    knows_runs
                    and text.endswith(".status")
                    and text != "self.status"
                    and not any(name in text for name in _OTHER_STATUSES)
                ):
                    lines.append(node.lineno)
    return sorted(lines)


def test_the_scan_finds_a_status_write():
    """The check below can fail: it finds each way of writing the status."""
    assert _status_writes(
        "Submission.objects.filter(pk=1).update(status=Submission.Status.SCORED)\n"
        "Submission(status='queued')\n"
        "sub.status = 'failed'\n"
        "Submission.objects.create(phase=p, status=Submission.Status.QUEUED)\n"
        "rows.filter(status__in=a).update(status=b)  # Submission\n"
    ) == [1, 2, 3, 4, 5]
    assert (
        _status_writes(
            "Submission\nRegistration.objects.filter().update(status=s)\n"
            "registration.status = s\n"
        )
        == []
    )


def test_only_the_lifecycle_module_writes_a_run_status():
    owner = ROOT / "evalhub/competitions/services/runs/lifecycle.py"
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "evalhub").rglob("*.py"))
        if "migrations" not in path.parts
        and path != owner
        and (lines := _status_writes(path.read_text()))
    }
    assert found == {}
    assert _status_writes(owner.read_text()) != []
