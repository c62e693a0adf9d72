"""Organisers (staff without model permissions) manage their own tasks in the admin."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evalhub.competitions.models import TestSet, TestSetFile

pytestmark = pytest.mark.django_db


def _gold_index(test_set: TestSet) -> int:
    return [f.role for f in test_set.files.order_by("pk")].index("gold")


def _change_form_data(test_set: TestSet) -> dict[str, object]:
    files = list(test_set.files.order_by("pk"))
    data: dict[str, object] = {
        "phase": test_set.phase_id,
        "slug": test_set.slug,
        "name": test_set.name,
        "visibility": test_set.visibility,
        "counts_for_ranking": "on",
        "gold_version": test_set.gold_version,
        "order": test_set.order,
        "files-TOTAL_FORMS": len(files) + 1,
        "files-INITIAL_FORMS": len(files),
        "files-MIN_NUM_FORMS": 0,
        "files-MAX_NUM_FORMS": 1000,
    }
    for i, f in enumerate(files):
        data[f"files-{i}-id"] = f.pk
        data[f"files-{i}-test_set"] = test_set.pk
        data[f"files-{i}-role"] = f.role
    return data


def test_organiser_sees_only_own_test_sets(
    client, organiser, test_set, django_user_model
):
    client.force_login(organiser)
    assert client.get("/admin/competitions/testset/").status_code == 200
    assert (
        client.get(f"/admin/competitions/testset/{test_set.pk}/change/").status_code
        == 200
    )
    stranger = django_user_model.objects.create_user("other-org", is_staff=True)
    client.force_login(stranger)
    listing = client.get("/admin/competitions/testset/")
    assert listing.status_code == 200 and test_set.name.encode() not in listing.content
    assert client.get(
        f"/admin/competitions/testset/{test_set.pk}/change/"
    ).status_code in (302, 403, 404)


def test_organiser_replaces_gold_through_the_admin(
    client, organiser, test_set, bucc_demo
):
    client.force_login(organiser)
    gold = bucc_demo.test_sets[0].gold["gold"]
    smaller = b"\n".join(gold.splitlines()[:5]) + b"\n"
    data = _change_form_data(test_set)
    data[f"files-{_gold_index(test_set)}-upload"] = SimpleUploadedFile(
        "new-gold.tsv", smaller
    )
    response = client.post(f"/admin/competitions/testset/{test_set.pk}/change/", data)
    assert response.status_code == 302, response.content[:3000]
    stored = TestSetFile.objects.get(test_set=test_set, role="gold")
    assert stored.size == len(smaller) and stored.original_name == "new-gold.tsv"
    assert TestSet.objects.get(pk=test_set.pk).gold_version == test_set.gold_version + 1


def test_bad_gold_in_the_admin_is_reported_and_not_stored(client, organiser, test_set):
    client.force_login(organiser)
    before = TestSetFile.objects.get(test_set=test_set, role="gold").sha256
    data = _change_form_data(test_set)
    data[f"files-{_gold_index(test_set)}-upload"] = SimpleUploadedFile(
        "broken.tsv", b"no tab here\n"
    )
    response = client.post(f"/admin/competitions/testset/{test_set.pk}/change/", data)
    assert response.status_code == 200  # the form again, with the error
    assert b"broken.tsv: gold, line 1" in response.content
    assert TestSetFile.objects.get(test_set=test_set, role="gold").sha256 == before


def test_dashboard_shows_queue_and_failures_to_organisers_only(
    client, organiser, participant, task, submit_run, demo_run
):
    from evalhub.competitions.models import Submission

    queued = submit_run(demo_run, method="waiting")
    checking = submit_run(demo_run, method="large")
    Submission.objects.filter(pk=checking.pk).update(status="validating")
    failed = submit_run(demo_run, method="broken")
    Submission.objects.filter(pk=failed.pk).update(
        status="failed",
        failure_category="timeout",
        failure_message="Scoring took longer than 600 s.",
    )
    url = f"/tasks/{task.slug}/dashboard/"
    client.force_login(participant)
    assert client.get(url).status_code == 404
    client.force_login(organiser)
    page = client.get(url).content.decode()
    assert f"#{queued.pk}" in page and "Scoring took longer than 600 s." in page
    assert f"#{checking.pk}" in page
    assert "being checked" in page  # a large run waiting for its worker check
