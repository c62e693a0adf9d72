"""A phase's ranking settings in a task bundle (``ranking:``, keyed by phase slug):
imported and exported through the organisers' bundle pages, round trip included;
bad values are refused with ``task.yaml`` and their line, and nothing is created."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions.models import SharedTask
from evalhub.rankings.models import PhaseRanking
from tests.competitions.test_bundles import MANIFEST
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db

RANKING = """\
ranking:
  evaluation:
    ladder: true
    ladder_margin: 0.5
    bootstrap_samples: 2000
    seed: 11
    alpha: 0.01
"""
SETTINGS = {
    "ladder": True,
    "ladder_margin": 0.5,
    "bootstrap_samples": 2000,
    "seed": 11,
    "alpha": 0.01,
}


@pytest.fixture
def demo_files(bucc_demo):  # noqa: ANN001, ANN201
    ts = bucc_demo.test_sets[0]
    return {
        "data/src.txt": ts.inputs["source_terms"],
        "data/tgt.txt": ts.inputs["target_terms"],
        "data/gold.tsv": ts.gold["gold"],
    }


def _post(client, bundle: bytes):  # noqa: ANN001, ANN202
    upload = SimpleUploadedFile("task.zip", bundle, content_type="application/zip")
    return client.post(reverse("competitions:bundle-import"), {"bundle": upload})


def _settings(task: SharedTask) -> dict[str, object]:
    row = PhaseRanking.objects.get(phase__task=task, phase__slug="evaluation")
    return {name: getattr(row, name) for name in SETTINGS}


def test_ranking_settings_round_trip_through_the_bundle_pages(
    client, organiser, demo_files, isolated_storage
):
    client.force_login(organiser)
    bundle = zip_bytes({"task.yaml": (MANIFEST + RANKING).encode(), **demo_files})
    assert _post(client, bundle).status_code == 302
    task = SharedTask.objects.get(slug="bundled")
    assert _settings(task) == SETTINGS

    exported = client.get(reverse("competitions:bundle-export", args=[task.slug]))
    assert exported.status_code == 200
    body = (
        b"".join(exported.streaming_content) if exported.streaming else exported.content
    )
    manifest = yaml.safe_load(zipfile.ZipFile(io.BytesIO(body)).read("task.yaml"))
    assert manifest["ranking"] == {"evaluation": SETTINGS}

    task.delete()
    assert _post(client, body).status_code == 302
    assert _settings(SharedTask.objects.get(slug="bundled")) == SETTINGS


def test_a_task_without_settings_exports_no_section(
    client, organiser, demo_files, isolated_storage
):
    client.force_login(organiser)
    bundle = zip_bytes({"task.yaml": MANIFEST.encode(), **demo_files})
    assert _post(client, bundle).status_code == 302
    exported = client.get(reverse("competitions:bundle-export", args=["bundled"]))
    manifest = yaml.safe_load(
        zipfile.ZipFile(io.BytesIO(exported.content)).read("task.yaml")
    )
    assert "ranking" not in manifest
    assert not PhaseRanking.objects.exists()


def test_bad_values_name_their_line_and_create_nothing(
    client, organiser, demo_files, isolated_storage
):
    client.force_login(organiser)
    bad = (
        RANKING.replace("ladder: true", "ladder: sometimes")
        .replace("0.5", "-2")
        .replace("2000", "12.5")
        .replace("alpha: 0.01", "alpha: .nan")
        + "    colour: red\n"
        + "  final:\n    seed: 3\n"  # its settings' first line
    )
    response = _post(
        client, zip_bytes({"task.yaml": (MANIFEST + bad).encode(), **demo_files})
    )
    assert response.status_code == 422
    problems = [str(p) for p in response.context["problems"]]
    start = MANIFEST.count("\n") + 1  # the line of "ranking:"
    expected = {
        start + 2: "ladder must be true or false, got 'sometimes'",
        start + 4: "bootstrap_samples must be a whole number, got 12.5",
        start + 6: "alpha must be a number, got nan",
        start + 7: "unknown setting 'colour'",
        start + 9: "no phase 'final' (phases: evaluation)",
    }
    for line, message in expected.items():
        assert any(
            p.startswith(f"task.yaml, line {line}: ") and message in p for p in problems
        ), (line, message, problems)
    assert not SharedTask.objects.exists() and not PhaseRanking.objects.exists()

    # A value of the right kind out of the model's range: its line, the model's rule.
    response = _post(
        client,
        zip_bytes(
            {
                "task.yaml": (MANIFEST + RANKING.replace("0.5", "-2")).encode(),
                **demo_files,
            }
        ),
    )
    assert response.status_code == 422
    (problem,) = [str(p) for p in response.context["problems"]]
    assert problem.startswith(f"task.yaml, line {start + 3}: ranking: evaluation: ")
    assert "ladder_margin" in problem and "greater than or equal to 0" in problem
    assert not SharedTask.objects.exists()


CHOICE = """\
ranking:
  evaluation:
    metric: f1
    columns: [f1, p_at_100, ap]
    overall: average_rank
"""


def test_the_ranking_metric_columns_and_overall_method_round_trip(
    client, organiser, demo_files, isolated_storage
):
    client.force_login(organiser)
    bundle = zip_bytes({"task.yaml": (MANIFEST + CHOICE).encode(), **demo_files})
    assert _post(client, bundle).status_code == 302
    chosen = {"metric": "f1", "columns": ["f1", "p_at_100", "ap"]}
    chosen["overall"] = "average_rank"
    row = PhaseRanking.objects.get(phase__task__slug="bundled")
    assert {k: getattr(row, k) for k in chosen} == chosen

    exported = client.get(reverse("competitions:bundle-export", args=["bundled"]))
    body = (
        b"".join(exported.streaming_content) if exported.streaming else exported.content
    )
    manifest = yaml.safe_load(zipfile.ZipFile(io.BytesIO(body)).read("task.yaml"))
    assert {k: manifest["ranking"]["evaluation"][k] for k in chosen} == chosen

    SharedTask.objects.get(slug="bundled").delete()
    assert _post(client, body).status_code == 302
    row = PhaseRanking.objects.get(phase__task__slug="bundled")
    assert {k: getattr(row, k) for k in chosen} == chosen
    # The boards rank by it (the one rule reads the stored choice).
    from evalhub.competitions.services.boards import ranking

    assert ranking.of(row.phase) == ranking.Ranking(
        metric="f1", columns=("f1", "p_at_100", "ap"), overall="average_rank"
    )


def test_a_metric_that_does_not_rank_is_refused_with_its_line(
    client, organiser, demo_files, isolated_storage
):
    client.force_login(organiser)
    bad = CHOICE.replace("metric: f1", "metric: map_source").replace(
        "p_at_100, ap", "p_at_100, nope"
    )
    response = _post(
        client, zip_bytes({"task.yaml": (MANIFEST + bad).encode(), **demo_files})
    )
    assert response.status_code == 422
    problems = [str(p) for p in response.context["problems"]]
    start = MANIFEST.count("\n") + 1
    assert any(
        p.startswith(f"task.yaml, line {start + 2}: ") and "map_source" in p
        for p in problems
    ), problems
    assert any(
        p.startswith(f"task.yaml, line {start + 3}: ") and "'nope'" in p
        for p in problems
    ), problems
    assert not SharedTask.objects.exists()
