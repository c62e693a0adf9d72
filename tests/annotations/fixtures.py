"""Fixtures: an mt_lexicon_probe task built from the task type's demo (27 probes,
reference translations as private gold) with its three demo systems submitted by
three teams and scored (automatic tags only), as the platform does; an annotator of
that task. Imported by ``tests/annotations/conftest.py`` and the permission matrix."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests import run_figures


@pytest.fixture
def mt_demo():  # noqa: ANN201
    from tasks import registry

    return registry.get("mt_lexicon_probe").demo(seed=0)


@pytest.fixture
def without_plots(monkeypatch):  # noqa: ANN001, ANN201
    """Skip rendering run plots (matplotlib, seconds per run on a busy machine) where a
    test is about tags and numbers; the plot path runs in the re-scoring plot test and
    in the browser test's real worker."""
    from tasks.mt_lexicon_probe.task import MtLexiconProbe

    monkeypatch.setattr(MtLexiconProbe, "plots", lambda self, report, settings: ())


@pytest.fixture
def mt_task(organiser, mt_demo, isolated_storage):  # noqa: ANN001, ANN201
    from evalhub.competitions.models import SharedTask

    task = SharedTask.objects.create(
        slug="probe-test",
        title="Probe test task",
        task_type="mt_lexicon_probe",
        task_settings=dict(mt_demo.settings),
        state=SharedTask.State.PUBLISHED,
    )
    task.organisers.add(organiser)
    return task


@pytest.fixture
def mt_test_set(mt_task, mt_demo):  # noqa: ANN001, ANN201
    from django.utils import timezone

    from evalhub.annotations.services import systems
    from evalhub.competitions.models import Phase, TestSet
    from evalhub.competitions.services.data import datasets

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
    for role, content in {**data.inputs, **data.gold}.items():
        datasets.store_file(
            test_set=test_set, role=role, filename=f"{role}.tsv", data=content
        )
    systems.clear_caches()
    return test_set


@pytest.fixture
def submit_scored(mt_test_set, django_user_model):  # noqa: ANN001, ANN201
    """Submit run bytes as a new team and score it synchronously."""
    from evalhub.competitions.services import teams
    from evalhub.competitions.services.runs import scoring, submit

    def _submit(name: str, data: bytes, *, user=None):  # noqa: ANN001, ANN202
        user = user or django_user_model.objects.create_user(f"user-{name}")
        teams.register(
            task=mt_test_set.phase.task, user=user, new_team_name=f"Team {name}"
        )
        sub = submit.submit_run(
            phase=mt_test_set.phase,
            user=user,
            filename=f"{name}.txt",
            data=data,
            method_name=name,
        )
        assert scoring.score_submission(submission_id=sub.pk) == "scored"
        run_figures.draw_pending(sub)  # the job the scoring job sends after commit
        sub.refresh_from_db()
        return sub

    return _submit


@pytest.fixture
def mt_runs(mt_demo, submit_scored, participant):  # noqa: ANN001, ANN201
    """The three demo systems, scored: {"wide": Submission, ...}; the participant
    is in the team of the "wide" system."""
    names = {"wide lexicon": "wide", "small lexicon": "small"}
    out = {}
    for _team, method, files in mt_demo.runs:
        name = names.get(method, "segmenting")
        out[name] = submit_scored(
            name,
            next(iter(files.values())),
            user=participant if name == "wide" else None,
        )
    return out


@pytest.fixture
def annotator(mt_task, organiser, django_user_model):  # noqa: ANN001, ANN201
    """A plain user (not staff) assigned as annotator of the probe task."""
    from evalhub.annotations.services import annotators

    user = django_user_model.objects.create_user("annie", password="pw-annie-1")
    annotators.add(task=mt_task, username="annie", by=organiser)
    return user
