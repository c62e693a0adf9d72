"""The bundle format and the console describe the same things: a task whose test
sets, files and their states were set in the console exports to a bundle that
imports back to an identical task (fields, phases, test sets, files' sha256,
settings)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import Phase, SharedTask
from evalhub.competitions.services.data import bundles
from tests.paths import shared_data

pytestmark = pytest.mark.django_db

ACTER = ("term_extraction", "acter", "en", "htfl", "annotated")


def _acter(name: str) -> bytes:
    return shared_data(
        *ACTER, "annotations", "unique_annotation_lists", name
    ).read_bytes()


def snapshot(task: SharedTask) -> dict:
    task = SharedTask.objects.get(slug=task.slug)
    return {
        "task": {
            f: getattr(task, f)
            for f in ("slug", "title", "description", "task_type", "task_settings",
                      "requires_approval", "state", "gold_released")
        },
        "phases": [
            {
                **{f: getattr(p, f) for f in (
                    "slug", "name", "opens_at", "closes_at", "daily_limit",
                    "total_limit", "failed_runs_count", "max_final_runs", "order")},
                "test_sets": [
                    {
                        **{f: getattr(ts, f) for f in (
                            "slug", "name", "visibility", "revealed",
                            "counts_for_ranking", "order")},
                        "files": sorted(
                            (f.role, f.private, f.original_name, f.sha256, f.size)
                            for f in ts.files.all()
                        ),
                    }
                    for ts in p.test_sets.all()
                ],
            }
            for p in task.phases.all()
        ],
    }  # fmt: skip


def _upload_and_confirm(client, task, ts, **files) -> None:  # noqa: ANN001, ANN003
    url = reverse("console:testset-files", args=[task.slug, ts.pk])
    data = {f"file_{r}": SimpleUploadedFile(n, c) for r, (n, c) in files.items()}
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert client.post(response["Location"]).status_code == 302


def test_a_console_task_round_trips_through_a_bundle(
    client, organiser, isolated_storage
):
    # The task and its phases (h18a's console pages; here through the ORM).
    task = SharedTask.objects.create(
        slug="acter-console", title="ACTER from the console", description="*Terms*",
        task_type="term_extraction", state="published", requires_approval=True,
        task_settings={"tau": 0.3, "exclude_labels": ["Named_Entity"]},
    )  # fmt: skip
    task.organisers.add(organiser)
    now = timezone.now().replace(microsecond=0)
    Phase.objects.create(
        task=task, slug="trial", name="Trial", order=3, opens_at=now,
        closes_at=now + timedelta(days=3), daily_limit=2, total_limit=9,
    )  # fmt: skip
    phase = Phase.objects.create(
        task=task, slug="test", name="Test phase", order=7, max_final_runs=2,
        opens_at=now - timedelta(days=1), closes_at=now + timedelta(days=30),
        failed_runs_count=True,
    )  # fmt: skip
    client.force_login(organiser)
    create = reverse("console:testset-create", args=[task.slug])
    for name, visibility, order in (
        ("Public", "public", 10),
        ("Held out", "private", 4),
    ):
        assert client.post(create, {
            "phase": phase.pk, "name": name, "visibility": visibility,
            "counts_for_ranking": "on" if order == 10 else "", "order": order,
        }).status_code == 302  # fmt: skip
    public, held_out = phase.test_sets.order_by("order").reverse()
    text = shared_data(*ACTER, "texts", "htfl_en_001.txt").read_bytes()
    _upload_and_confirm(
        client, task, public,
        corpus=("htfl_en_001.txt", text), gold=("htfl_en_terms.tsv", _acter("htfl_en_terms.tsv")),
    )  # fmt: skip
    _upload_and_confirm(
        client, task, held_out, gold=("nes.tsv", _acter("htfl_en_terms_nes.tsv"))
    )
    # Replaced once: the gold version is not part of a bundle, the file is.
    _upload_and_confirm(
        client, task, held_out, gold=("nes-v2.tsv", _acter("htfl_en_terms_nes.tsv")[:-200].rsplit(b"\n", 1)[0] + b"\n")
    )  # fmt: skip
    client.post(reverse("console:testset-reveal", args=[task.slug, held_out.pk]))
    client.post(reverse("console:gold-release", args=[task.slug]))
    before = snapshot(task)
    assert before["task"]["gold_released"]
    assert [ts["revealed"] for ts in before["phases"][1]["test_sets"]] == [True, False]
    assert len(before["phases"][1]["test_sets"][1]["files"]) == 2

    exported = client.get(reverse("competitions:bundle-export", args=[task.slug]))
    assert exported.status_code == 200
    data = (
        b"".join(exported.streaming_content) if exported.streaming else exported.content
    )
    SharedTask.objects.filter(pk=task.pk).delete()
    imported = bundles.import_bundle(data=data, user=organiser)
    after = snapshot(imported)
    assert after == before
    assert list(imported.organisers.all()) == [organiser]
    # The manifest names what it holds (read back, not just re-imported).
    import io
    import zipfile

    manifest = yaml.safe_load(zipfile.ZipFile(io.BytesIO(data)).read("task.yaml"))
    assert manifest["gold_released"] is True
    assert [p["order"] for p in manifest["phases"]] == [3, 7]
    assert [t["order"] for t in manifest["phases"][1]["test_sets"]] == [4, 10]
