"""A staff organiser of task A finds no trace of another organiser's draft task B
anywhere in the admin (lists, filter sidebars, add and change forms, history) and no
list of the site's users; gold is released only after the private scores are."""

from __future__ import annotations

import json

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.test import RequestFactory
from django.urls import NoReverseMatch, reverse

from evalhub.competitions.models import (
    Phase,
    Registration,
    SharedTask,
    Submission,
    Team,
    TestSet,
)
from evalhub.competitions.services.data import datasets

pytestmark = pytest.mark.django_db

SECRETS = ("Zebra secret draft", "Hidden-phase", "Hidden-set", "Hidden-team", "x-org-b")
STRANGER = "zz-unrelated-user"


@pytest.fixture
def draft_b(phase, django_user_model):  # noqa: ANN001, ANN201
    other = django_user_model.objects.create_user("x-org-b", is_staff=True)
    django_user_model.objects.create_user(STRANGER)
    b = SharedTask.objects.create(
        slug="b", title="Zebra secret draft", task_type=phase.task.task_type,
        task_settings=dict(phase.task.task_settings),
    )  # fmt: skip
    b.organisers.add(other)
    b_phase = Phase.objects.create(
        task=b, slug="p", name="Hidden-phase", opens_at=phase.opens_at,
        closes_at=phase.closes_at,
    )  # fmt: skip
    TestSet.objects.create(phase=b_phase, slug="s", name="Hidden-set")
    b_team = Team.objects.create(name="Hidden-team")
    Registration.objects.create(task=b, team=b_team)
    Submission.objects.create(
        phase=b_phase, team=b_team, original_name="b.tsv", sha256="0" * 64,
        method_name="Hidden-method",
    )  # fmt: skip
    return b


def _admin_urls(user) -> list[str]:  # noqa: ANN001
    request = RequestFactory().get("/admin/")
    request.user = user
    urls = ["/admin/"]
    for model, model_admin in admin.site._registry.items():  # noqa: SLF001
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        urls += [f"/admin/{model._meta.app_label}/"]
        urls += [reverse(f"{name}_changelist"), reverse(f"{name}_add")]
        for obj in model_admin.get_queryset(request):
            for view in ("change", "history", "delete"):
                try:
                    urls.append(reverse(f"{name}_{view}", args=[obj.pk]))
                except NoReverseMatch:
                    pass
    return sorted(set(urls))


def test_organiser_sees_no_trace_of_another_organisers_draft(
    client, organiser, task, test_set, team, submit_run, demo_run, draft_b
):
    submit_run(demo_run)
    # Model permissions a site may grant organisers open more pages: same rule there.
    organiser.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["add_phaseranking", "view_phaseranking", "view_judgement"]
        )
    )
    client.force_login(organiser)
    urls = _admin_urls(organiser)
    assert "/admin/rankings/phaseranking/add/" in urls
    # Each model's pages, the filter sidebars of runs and registrations included.
    assert "/admin/competitions/submission/" in urls
    assert f"/admin/competitions/sharedtask/{task.pk}/change/" in urls
    seen = 0
    for url in urls:
        response = client.get(url)
        assert response.status_code in (200, 302, 403, 404), url
        if response.status_code == 200:
            seen += 1
            page = response.content.decode()
            for secret in (*SECRETS, STRANGER):
                assert secret not in page, (url, secret)
    assert seen >= 8


def test_organisers_are_typed_names_not_a_list_of_users(client, organiser, task):
    bob = type(organiser).objects.create_user("bob")
    client.force_login(organiser)
    form = {
        "title": "New task", "slug": "new-task", "description": "",
        "task_type": task.task_type, "task_settings": json.dumps(task.task_settings),
        "state": "draft", "phases-TOTAL_FORMS": 0, "phases-INITIAL_FORMS": 0,
        "phases-MIN_NUM_FORMS": 0, "phases-MAX_NUM_FORMS": 1000,
    }  # fmt: skip
    page = client.post(
        "/admin/competitions/sharedtask/add/", {**form, "organisers": "bob nobody-here"}
    )
    assert page.status_code == 200
    assert "No account has the user name: nobody-here." in page.content.decode()
    assert not SharedTask.objects.filter(slug="new-task").exists()
    done = client.post(
        "/admin/competitions/sharedtask/add/", {**form, "organisers": "bob"}
    )
    assert done.status_code == 302
    new = SharedTask.objects.get(slug="new-task")
    assert set(new.organisers.all()) == {bob, organiser}  # the creator stays one
    change = client.get(f"/admin/competitions/sharedtask/{new.pk}/change/")
    assert 'value="bob, org"' in change.content.decode()


def test_gold_release_waits_for_the_private_scores(
    client, organiser, task, test_set, private_test_set
):
    with pytest.raises(datasets.GoldReleaseRefused) as refused:
        datasets.release_gold(task=task)
    assert "Evaluation / Private" in str(refused.value)
    assert not SharedTask.objects.get(pk=task.pk).gold_released
    client.force_login(organiser)
    url = "/admin/competitions/sharedtask/"
    action = {"action": "release_gold", "_selected_action": [task.pk]}
    page = client.post(url, action, follow=True).content.decode()
    assert "are not revealed yet" in page and "Gold released for 0 task(s)." in page
    assert not SharedTask.objects.get(pk=task.pk).gold_released
    # The change form cannot tick it either.
    change = client.get(f"/admin/competitions/sharedtask/{task.pk}/change/")
    assert 'name="gold_released"' not in change.content.decode()
    # Revealed, or explicitly confirmed: released, once.
    datasets.reveal(test_set=private_test_set)
    assert datasets.release_gold(task=task) is True
    assert datasets.release_gold(task=task) is False


def test_gold_release_can_be_confirmed_before_the_reveal(
    client, organiser, task, private_test_set
):
    client.force_login(organiser)
    action = {"action": "release_gold_unrevealed", "_selected_action": [task.pk]}
    page = client.post("/admin/competitions/sharedtask/", action, follow=True)
    assert "Gold released for 1 task(s)." in page.content.decode()
    assert SharedTask.objects.get(pk=task.pk).gold_released
