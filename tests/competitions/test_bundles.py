from __future__ import annotations

import pytest

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services import roles
from evalhub.competitions.services.data import bundles
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db

MANIFEST = """\
slug: bundled
title: Bundled BUCC task
description: From a *bundle*.
task_type: bilingual_term_alignment
settings: {cap_policy: reject}
state: published
phases:
  - slug: evaluation
    name: Evaluation
    opens: 2026-01-01T00:00:00Z
    closes: 2027-01-01T00:00:00Z
    daily_limit: 4
    test_sets:
      - slug: test
        name: Test
        visibility: private
        files:
          source_terms: data/src.txt
          target_terms: data/tgt.txt
          gold: data/gold.tsv
"""


@pytest.fixture
def demo_files(bucc_demo):  # noqa: ANN001, ANN201
    ts = bucc_demo.test_sets[0]
    return {
        "data/src.txt": ts.inputs["source_terms"],
        "data/tgt.txt": ts.inputs["target_terms"],
        "data/gold.tsv": ts.gold["gold"],
    }


def test_import_creates_the_whole_task_and_export_round_trips(
    organiser, demo_files, isolated_storage
):
    task = bundles.import_bundle(
        data=zip_bytes({"task.yaml": MANIFEST.encode(), **demo_files}), user=organiser
    )
    assert roles.is_organiser(organiser, task) and task.state == "published"
    phase = task.phases.get()
    assert phase.daily_limit == 4 and phase.total_limit == 100
    test_set = phase.test_sets.get()
    assert test_set.visibility == "private"
    assert {f.role: f.private for f in test_set.files.all()} == {
        "source_terms": False, "target_terms": False, "gold": True
    }  # fmt: skip
    exported = bundles.export_bundle(task=task)
    task.delete()
    again = bundles.import_bundle(data=exported, user=organiser)
    assert (
        again.slug == "bundled"
        and again.phases.get().test_sets.get().files.count() == 3
    )


def test_every_manifest_problem_names_its_line(organiser, demo_files, isolated_storage):
    bad = (
        MANIFEST.replace("daily_limit: 4", "daily_limit: four")
        .replace("gold: data/gold.tsv", "gold: data/missing.tsv")
        .replace("task_type: bilingual_term_alignment", "task_type: nope")
    )
    with pytest.raises(bundles.BundleError) as info:
        bundles.import_bundle(
            data=zip_bytes({"task.yaml": bad.encode(), **demo_files}), user=organiser
        )
    text = [str(p) for p in info.value.problems]
    assert any("task.yaml, line 4" in t and "unknown task type" in t for t in text)
    assert any(
        "line 12" in t and "daily_limit" in t and "whole number" in t for t in text
    )
    assert any("data/missing.tsv" in t for t in text)
    assert not SharedTask.objects.exists()


def test_bad_gold_in_a_bundle_names_the_file_and_line(
    organiser, demo_files, isolated_storage
):
    demo_files["data/gold.tsv"] = b"a\tb\nno tab\n"
    with pytest.raises(bundles.BundleError) as info:
        bundles.import_bundle(
            data=zip_bytes({"task.yaml": MANIFEST.encode(), **demo_files}),
            user=organiser,
        )
    assert "data/gold.tsv, line 2: (gold) no tab" in str(info.value.problems[0])
    assert not SharedTask.objects.exists()
    # The inputs stored before the gold failed are gone with the rolled-back rows.
    assert [p for p in isolated_storage["root"].rglob("*") if p.is_file()] == []


def test_bundle_pages_are_for_staff_and_organisers(
    client, organiser, participant, demo_files, isolated_storage
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(participant)
    assert client.get("/new/bundle/").status_code == 403  # with how to get the right
    client.force_login(organiser)
    bad = client.post(
        "/new/bundle/", {"bundle": SimpleUploadedFile("b.zip", b"not a zip")}
    )
    assert bad.status_code == 422 and b"is not a zip file" in bad.content
    data = zip_bytes({"task.yaml": MANIFEST.encode(), **demo_files})
    ok = client.post("/new/bundle/", {"bundle": SimpleUploadedFile("b.zip", data)})
    assert ok.status_code == 302 and ok["Location"] == "/tasks/bundled/"
    assert client.get("/tasks/bundled/bundle.zip").status_code == 200
    client.force_login(participant)
    assert client.get("/tasks/bundled/bundle.zip").status_code == 404
