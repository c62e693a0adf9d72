"""A fifth task type needs its folder and one registry entry, nothing in ``evalhub/``:
the toy type defined under ``tests/toy_task/`` is registered through
``EVALHUB_EXTRA_TASK_TYPES`` only, and an organiser creates a task of it from a bundle,
a team registers and uploads a run through the pages, a real Celery worker process
(which sees the type through the same variable) scores it, and the public leaderboard
shows it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions.checks import check_task_types
from evalhub.competitions.models import Score, SharedTask, Submission
from tasks import registry
from tests.e2e.test_pipeline import _wait_for
from tests.toy_task import task as toy
from tests.zips import zip_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MANIFEST = """\
slug: toy
title: Toy labels
task_type: toy_labels
state: published
phases:
  - slug: evaluation
    name: Evaluation
    opens: 2020-01-01T00:00:00Z
    closes: 2099-01-01T00:00:00Z
    test_sets:
      - slug: test
        name: Test
        files:
          items: data/items.txt
          labels: data/labels.tsv
"""
ITEMS = b"a\nb\nc\nd\n"
GOLD = b"a\tx\nb\ty\nc\tx\nd\ty\n"
RUN = b"a\tx\nb\ty\nc\ty\n"  # 2 of 4 items right, 3 of 4 labelled


@pytest.fixture
def toy_type(monkeypatch):  # noqa: ANN001, ANN201
    """The toy type registered for this process and every process it starts."""
    monkeypatch.setenv(registry.EXTRA_ENV, f"{toy.SLUG}={toy.PATH}")
    registry.get.cache_clear()
    yield registry.get(toy.SLUG)
    registry.get.cache_clear()


@pytest.fixture
def toy_worker(toy_type, request):  # noqa: ANN001, ANN201
    """The real worker, started after the variable is set (it copies the environment)."""
    return request.getfixturevalue("own_worker")


def test_a_task_type_outside_tasks_goes_from_bundle_to_the_public_board(
    client, organiser, participant, toy_worker
):
    assert toy.SLUG in registry.slugs()
    assert check_task_types(None) == []  # the system check accepts it

    organiser.is_staff = True
    organiser.save(update_fields=["is_staff"])
    client.force_login(organiser)
    bundle = zip_bytes(
        {
            "task.yaml": MANIFEST.encode(),
            "data/items.txt": ITEMS,
            "data/labels.tsv": GOLD,
        }
    )
    response = client.post(
        reverse("competitions:bundle-import"),
        {"bundle": SimpleUploadedFile("toy.zip", bundle)},
    )
    assert response.status_code == 302, response.content[:2000]
    task = SharedTask.objects.get(slug="toy")
    assert task.task_type == toy.SLUG
    phase = task.phases.get()

    client.force_login(participant)
    response = client.post(
        reverse("competitions:task-register", args=[task.slug]),
        {"new_team": "Toy team"},
    )
    assert response.status_code == 302, response.content[:2000]
    task_page = client.get(task.get_absolute_url()).content.decode()
    assert "toy labels format" in task_page  # the type's format help
    response = client.post(
        reverse("competitions:run-submit", args=[task.slug, phase.slug]),
        {"method_name": "mostly x", "run": SimpleUploadedFile("run.tsv", RUN)},
    )
    assert response.status_code == 302, response.content[:2000]
    sub = Submission.objects.get()

    def scored() -> bool:
        assert toy_worker.poll() is None, "the worker died"
        sub.refresh_from_db()
        assert sub.status not in ("failed", "rejected"), sub.failure_message
        return sub.status == "scored"

    _wait_for(scored, "the toy run to be scored")
    assert sub.scorer_version == "1"
    values = dict(Score.objects.filter(submission=sub).values_list("metric", "value"))
    assert {k: Fraction(v) for k, v in values.items()} == {
        "accuracy": Fraction(1, 2),
        "coverage": Fraction(3, 4),
    }

    client.logout()
    board_url = reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    board = _wait_for(
        lambda: (
            (html := client.get(board_url).content.decode())
            and f"/runs/{sub.pk}/" in html
            and html
        ),
        "the public leaderboard row",
    )
    assert "Toy team" in board and "mostly x" in board
    assert "Accuracy" in board and "0.5" in board


def test_a_bad_run_of_the_toy_type_is_rejected_with_its_line(
    client, organiser, participant, toy_type, isolated_storage
):
    from evalhub.competitions.services import teams
    from evalhub.competitions.services.data import bundles
    from evalhub.competitions.services.runs import submit

    task = bundles.import_bundle(
        data=zip_bytes(
            {
                "task.yaml": MANIFEST.encode(),
                "data/items.txt": ITEMS,
                "data/labels.tsv": GOLD,
            }
        ),
        user=organiser,
    )
    teams.register(task=task, user=participant, new_team_name="Toy team")
    with pytest.raises(submit.SubmissionInvalid) as info:
        submit.submit_run(
            phase=task.phases.get(),
            user=participant,
            filename="run.tsv",
            data=b"a\tx\nzz\ty\n",
            method_name="m",
        )
    assert "run.tsv" in str(info.value) and "unknown item 'zz'" in str(info.value)
