"""The task's creator is its owner (issue 28, item 10): set on every path that creates
a task, shown on the Organisers page; no co-organiser removes the owner; the owner
hands ownership over (and may then be removed by the new owner)."""

from __future__ import annotations

import importlib
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from evalhub.competitions.models import SharedTask
from tests.competitions.test_bundles import MANIFEST
from tests.console.test_setup_tasks import _term_extraction_post
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db


def _messages(response) -> str:  # noqa: ANN001
    return " ".join(str(m) for m in response.context["messages"])


@pytest.fixture
def owned_task(client, organiser, isolated_storage):  # noqa: ANN001, ANN201
    """A task ``org`` creates on the console's /new/task/ form."""
    client.force_login(organiser)
    response = client.post(reverse("console:task-create"), _term_extraction_post())
    assert response.status_code == 302, response.content.decode()[:2000]
    client.logout()
    return SharedTask.objects.get(slug="acter-terms")


@pytest.fixture
def bob(client, organiser, owned_task, django_user_model):  # noqa: ANN001, ANN201
    """A non-staff co-organiser the owner adds."""
    bob = django_user_model.objects.create_user("bob", password="pw-bob-1")
    client.force_login(organiser)
    url = reverse("console:organisers", args=[owned_task.slug])
    assert client.post(url, {"username": "bob"}).status_code == 302
    client.logout()
    return bob


def _remove(client, task, user):  # noqa: ANN001, ANN202
    url = reverse("console:organiser-remove", args=[task.slug, user.pk])
    return client.post(url, follow=True)


def test_the_creator_owns_a_task_made_on_the_console(owned_task, organiser):
    assert owned_task.owner == organiser


def test_the_importer_owns_a_bundled_task(
    client, organiser, bucc_demo, isolated_storage
):
    ts = bucc_demo.test_sets[0]
    files = {
        "data/src.txt": ts.inputs["source_terms"],
        "data/tgt.txt": ts.inputs["target_terms"],
        "data/gold.tsv": ts.gold["gold"],
    }
    data = zip_bytes({"task.yaml": MANIFEST.encode(), **files})
    client.force_login(organiser)
    response = client.post(
        "/new/bundle/", {"bundle": SimpleUploadedFile("b.zip", data)}
    )
    assert response.status_code == 302
    assert SharedTask.objects.get(slug="bundled").owner == organiser


def test_the_demo_organiser_owns_the_demo_tasks(isolated_storage):
    call_command("seed_demo", "--task-type", "bilingual_term_alignment", "--no-runs")
    task = SharedTask.objects.get(slug="demo-bilingual-term-alignment")
    assert task.owner is not None and task.owner.username == "organiser"


def test_the_creator_owns_a_task_added_in_the_admin(
    client, organiser, bucc_demo, isolated_storage
):
    client.force_login(organiser)
    response = client.post(
        reverse("admin:competitions_sharedtask_add"),
        {
            "slug": "admin-made",
            "title": "Made in the admin",
            "description": "",
            "task_type": "bilingual_term_alignment",
            "task_settings": json.dumps(dict(bucc_demo.settings)),
            "organisers": "",
            "state": "draft",
            "phases-TOTAL_FORMS": "0",
            "phases-INITIAL_FORMS": "0",
            "phases-MIN_NUM_FORMS": "0",
            "phases-MAX_NUM_FORMS": "1000",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    task = SharedTask.objects.get(slug="admin-made")
    assert task.owner == organiser and list(task.organisers.all()) == [organiser]


def test_a_co_organiser_cannot_remove_the_owner(client, organiser, owned_task, bob):
    client.force_login(bob)
    response = _remove(client, owned_task, organiser)
    assert "org owns this task and cannot be removed by a co-organiser" in _messages(
        response
    )
    assert set(owned_task.organisers.all()) == {organiser, bob}
    # Nor through the admin's organisers field (bob is no staff user; org is).
    bob.is_staff = True
    bob.save()
    admin_url = reverse("admin:competitions_sharedtask_change", args=[owned_task.pk])
    page = client.get(admin_url)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {
        name: form[name].value()
        for name in form.fields
        if form[name].value() is not None
    }
    data.update(
        organisers="bob",
        task_settings=json.dumps(owned_task.task_settings),
        **{"phases-TOTAL_FORMS": "0", "phases-INITIAL_FORMS": "0"},
    )
    refused = client.post(admin_url, data)
    assert refused.status_code == 200
    assert "org owns this task and cannot be removed" in refused.content.decode()
    assert set(owned_task.organisers.all()) == {organiser, bob}
    # Nor does a co-organiser delete the task in the admin.
    delete = reverse("admin:competitions_sharedtask_delete", args=[owned_task.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert SharedTask.objects.filter(pk=owned_task.pk).exists()


def test_the_owner_is_not_removed_while_owner(client, organiser, owned_task, bob):
    client.force_login(organiser)
    response = _remove(client, owned_task, organiser)
    assert "You own this task, so you cannot be removed" in _messages(response)
    assert set(owned_task.organisers.all()) == {organiser, bob}


def test_the_owner_hands_over_then_the_new_owner_may_remove_them(
    client, organiser, owned_task, bob
):
    page_url = reverse("console:organisers", args=[owned_task.slug])
    hand_over = reverse("console:owner-hand-over", args=[owned_task.slug])
    client.force_login(bob)
    page = client.get(page_url).content.decode()
    assert "Owner: <strong>org</strong>" in page and "Hand ownership over" not in page
    refused = client.post(
        hand_over, {"new_owner": bob.pk, "confirm": "on"}, follow=True
    )
    assert "Only the task's owner can hand ownership over" in _messages(refused)
    owned_task.refresh_from_db()
    assert owned_task.owner == organiser

    client.force_login(organiser)
    page = client.get(page_url).content.decode()
    assert "Owner: <strong>org</strong> (you)" in page
    assert "Hand ownership over" in page
    unconfirmed = client.post(hand_over, {"new_owner": bob.pk})
    assert unconfirmed.status_code == 422
    owned_task.refresh_from_db()
    assert owned_task.owner == organiser
    done = client.post(hand_over, {"new_owner": bob.pk, "confirm": "on"}, follow=True)
    assert "bob now owns this task." in _messages(done)
    owned_task.refresh_from_db()
    assert owned_task.owner == bob
    assert set(owned_task.organisers.all()) == {organiser, bob}  # org stays
    assert "Owner: <strong>bob</strong>" in done.content.decode()

    client.force_login(bob)
    response = _remove(client, owned_task, organiser)
    assert "The organiser is removed." in _messages(response)
    assert list(owned_task.organisers.all()) == [bob]


def test_existing_tasks_are_owned_by_their_first_organiser(
    task, organiser, django_user_model
):
    from django.apps import apps

    later = django_user_model.objects.create_user("later")
    task.organisers.add(later)
    SharedTask.objects.filter(pk=task.pk).update(owner=None)
    migration = importlib.import_module(
        "evalhub.competitions.migrations.0010_task_owner"
    )
    migration._earliest_organiser_owns(apps, None)
    task.refresh_from_db()
    assert task.owner == organiser
