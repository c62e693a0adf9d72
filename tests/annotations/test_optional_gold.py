"""An optional gold file (the MT probe's reference translations) added for the first
time, then removed, scores the runs again on what the test set now holds (issue 28,
item 3: on main neither rescored anything nor bumped the gold version, so the runs
kept the scores of a test set without references, and the rescoring page did not
list them)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions.models import Evaluation, Phase, Submission, TestSet
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import scoring, submit
from evalhub.competitions.services.teams import register

pytestmark = pytest.mark.django_db


def test_references_added_then_removed_rescore_the_runs(mt_task, mt_demo, participant):
    now = timezone.now()
    phase = Phase.objects.create(
        task=mt_task,
        slug="evaluation",
        name="Evaluation",
        opens_at=now - timedelta(days=1),
        closes_at=now + timedelta(days=7),
    )
    test_set = TestSet.objects.create(phase=phase, slug="probes", name="Probes")
    data = mt_demo.test_sets[0]
    for role, content in data.inputs.items():
        datasets.store_file(test_set=test_set, role=role, filename=role, data=content)
    register(task=mt_task, user=participant, new_team_name="Alpha")
    _team, method, files = mt_demo.runs[0]
    sub = submit.submit_run(
        phase=phase,
        user=participant,
        filename="run.txt",
        data=next(iter(files.values())),
        method_name=method,
    )
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    before = TestSet.objects.get(pk=test_set.pk).gold_version

    datasets.store_file(
        test_set=test_set,
        role="references",
        filename="references.tsv",
        data=data.gold["references"],
    )
    test_set.refresh_from_db()
    assert test_set.gold_version == before + 1
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.QUEUED
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    evaluation = Evaluation.objects.get(submission=sub, test_set=test_set)
    assert evaluation.gold_version == test_set.gold_version

    test_set.files.get(role="references").delete()
    test_set.refresh_from_db()
    assert test_set.gold_version == before + 2
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.QUEUED
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    evaluation.refresh_from_db()
    assert evaluation.gold_version == test_set.gold_version
