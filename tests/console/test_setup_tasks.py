"""Creating a task from scratch and its settings page: the type's settings form,
errors at the field they name, Markdown preview sanitised as on the task page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.models import SharedTask
from evalhub.console.forms import TaskForm

pytestmark = pytest.mark.django_db


def _f(slug: str, key: str) -> str:
    return TaskForm.field_name(slug, key)


def _term_extraction_post(**overrides: object) -> dict[str, object]:
    te = "term_extraction"
    data: dict[str, object] = {
        "task_type": te,
        "title": "ACTER terms",
        "slug": "acter-terms",
        "description": "Extract **terms**.",
        "state": "draft",
        _f(te, "tau"): "0.3",
        _f(te, "mode"): "default",
        _f(te, "cap"): "",
        _f(te, "max_terms"): "5000",
        _f(te, "exclude_labels"): ["Named_Entity"],
        _f(te, "json_list"): "",
    }
    # The other types' fields are posted too (the page holds them all).
    for slug in ("bilingual_term_alignment", "sentence_alignment", "mt_lexicon_probe"):
        form = TaskForm()
        for spec in form.specs[slug]:
            if spec.kind == "bool":
                continue
            value = spec.default
            data[_f(slug, spec.key)] = "" if value is None else value
    data.update(overrides)
    return data


def test_a_staff_user_creates_a_task_and_organises_it(client, organiser):
    client.force_login(organiser)
    page = client.get(reverse("console:task-create"))
    assert page.status_code == 200
    html = page.content.decode()
    # Every type is offered with its files and its settings.
    assert "Gold term list" in html and "Gold dictionary (D1,2)" in html
    assert "Threshold τ" in html and "Runs longer than the cap" in html
    response = client.post(
        reverse("console:task-create"),
        _term_extraction_post(**{_f("term_extraction", "casefold"): "on"}),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    task = SharedTask.objects.get(slug="acter-terms")
    assert response["Location"] == reverse(
        "competitions:task-dashboard", args=[task.slug]
    )
    assert list(task.organisers.all()) == [organiser]
    assert task.task_type == "term_extraction" and task.state == "draft"
    settings = task.parsed_settings()
    assert settings.tau == 0.3 and settings.casefold is True
    assert settings.exclude_labels == ("Named_Entity",)
    assert settings.max_terms == 5000 and settings.cap is None


def test_a_bad_setting_is_shown_at_its_field(client, organiser):
    client.force_login(organiser)
    response = client.post(
        reverse("console:task-create"),
        _term_extraction_post(**{_f("term_extraction", "tau"): "1.5"}),
    )
    assert response.status_code == 422
    form = response.context["form"]
    assert "tau: 1.5 is not between 0 and 1" in str(
        form.errors[_f("term_extraction", "tau")]
    )
    assert not SharedTask.objects.filter(slug="acter-terms").exists()


def test_only_the_chosen_types_settings_are_read(client, organiser):
    """A bad value in another type's (hidden) group does not block the chosen one."""
    client.force_login(organiser)
    data = _term_extraction_post(**{_f("bilingual_term_alignment", "cap_factor"): "-1"})
    assert client.post(reverse("console:task-create"), data).status_code == 302


def test_a_taken_address_is_refused(client, organiser, task):
    client.force_login(organiser)
    data = _term_extraction_post(slug=task.slug)
    response = client.post(reverse("console:task-create"), data)
    assert response.status_code == 422
    assert "exists already" in str(response.context["form"].errors["slug"])


def test_non_staff_users_cannot_create_tasks(client, participant):
    assert client.get(reverse("console:task-create")).status_code == 302
    client.force_login(participant)
    assert client.get(reverse("console:task-create")).status_code == 403
    response = client.post(reverse("console:task-create"), _term_extraction_post())
    assert response.status_code == 403
    assert not SharedTask.objects.exists()


def test_the_settings_page_changes_settings_not_the_type(client, organiser, task):
    client.force_login(organiser)
    url = reverse("console:task-settings", args=[task.slug])
    page = client.get(url)
    assert page.status_code == 200
    bucc = "bilingual_term_alignment"
    assert page.context["form"].initial[_f(bucc, "cap_policy")] == "reject"
    data = {
        "title": "Renamed",
        "slug": "ignored",
        "description": "New text",
        "state": "published",
        "requires_approval": "on",
        _f(bucc, "cap_policy"): "truncate",
        _f(bucc, "cap_factor"): "5",
        _f(bucc, "detail_candidates"): "2",
        "task_type": "term_extraction",
    }
    assert client.post(url, data).status_code == 302
    task.refresh_from_db()
    assert task.title == "Renamed" and task.requires_approval
    assert task.slug == "bucc-test" and task.task_type == bucc
    assert task.task_settings["cap_policy"] == "truncate"
    assert task.parsed_settings().cap_factor == 5.0
    data[_f(bucc, "cap_policy")] = "drop"
    response = client.post(url, data)
    assert response.status_code == 422
    assert _f(bucc, "cap_policy") in response.context["form"].errors


def test_settings_page_is_for_the_tasks_organisers_only(
    client, task, participant, django_user_model
):
    other = django_user_model.objects.create_user("org2", is_staff=True)
    url = reverse("console:task-settings", args=[task.slug])
    for user in (participant, other):
        client.force_login(user)
        assert client.get(url).status_code == 404
        assert client.post(url, {"title": "x"}).status_code == 404
    task.refresh_from_db()
    assert task.title == "BUCC test task"


def test_markdown_preview_is_sanitised_as_the_task_page(client, organiser, participant):
    url = reverse("console:markdown-preview")
    text = "**bold** <script>alert(1)</script> [x](javascript:alert(2)) <img src=x onerror=y>"
    client.force_login(participant)
    assert client.post(url, {"description": text}).status_code == 404
    client.force_login(organiser)
    html = client.post(url, {"description": text}).content.decode()
    assert "<strong>bold</strong>" in html
    assert "<script" not in html and "javascript:" not in html and "onerror" not in html
    assert client.get(url).status_code == 405


def test_csrf_is_required(organiser):
    from django.test import Client

    c = Client(enforce_csrf_checks=True)
    c.force_login(organiser)
    assert (
        c.post(reverse("console:task-create"), _term_extraction_post()).status_code
        == 403
    )
