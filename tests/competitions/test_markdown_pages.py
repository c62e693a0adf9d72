"""The task description is rendered once, when saved, on every save path (console,
bundle import, admin, demo seeding), and pages print the stored HTML; the length
limit is refused with its message by the console form, its preview, the bundle
import and the admin (issue 28, item 8)."""

from __future__ import annotations

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions import markdown
from evalhub.competitions.models import SharedTask
from evalhub.console.forms import TaskForm
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db

BUCC = "bilingual_term_alignment"
TOO_LONG = "a" * 50_001
LIMIT_MESSAGE = (
    "The description is too long: 50,001 characters; at most 50,000 are allowed."
)


@pytest.fixture
def co_organiser(task, django_user_model):  # noqa: ANN001, ANN201
    """Any user an organiser adds: not staff, trusted with nothing else."""
    user = django_user_model.objects.create_user("co-organiser")
    task.organisers.add(user)
    return user


def _settings_post(client, task, description: str):  # noqa: ANN001, ANN202
    data = {
        "title": task.title,
        "slug": task.slug,
        "description": description,
        "state": task.state,
        TaskForm.field_name(BUCC, "cap_policy"): "reject",
        TaskForm.field_name(BUCC, "cap_factor"): "5",
        TaskForm.field_name(BUCC, "detail_candidates"): "2",
    }
    return client.post(reverse("console:task-settings", args=[task.slug]), data)


def test_the_task_page_prints_the_description_stored_when_saved(
    client, task, co_organiser
):
    client.force_login(co_organiser)
    assert _settings_post(client, task, "Find **terms** & pairs.").status_code == 302
    task.refresh_from_db()
    assert task.description_html == "<p>Find <strong>terms</strong> &amp; pairs.</p>\n"
    client.logout()
    page = client.get(task.get_absolute_url()).content.decode()
    assert "<p>Find <strong>terms</strong> &amp; pairs.</p>" in page
    assert '<meta name="description" content="Find terms &amp; pairs.">' in page
    # Printed, not rendered per view: what is stored is what the page shows.
    SharedTask.objects.filter(pk=task.pk).update(description_html="<p>Stored.</p>")
    page = client.get(task.get_absolute_url()).content.decode()
    assert "<p>Stored.</p>" in page and "<strong>terms</strong>" not in page
    assert '<meta name="description" content="Stored.">' in page


def test_a_hostile_description_costs_the_anonymous_page_nothing(
    client, task, co_organiser
):
    """50,000 "[" (Python-Markdown: about a minute, three times per view)."""
    client.force_login(co_organiser)
    assert _settings_post(client, task, "[" * 50_000).status_code == 302
    client.logout()
    start = time.process_time()
    page = client.get(task.get_absolute_url())
    assert time.process_time() - start < 1.0
    assert page.status_code == 200 and "[" * 1000 in page.content.decode()


def test_a_stored_script_is_sanitised(client, task, co_organiser):
    client.force_login(co_organiser)
    text = (
        "**bold** <script>alert(1)</script>\n\n<img src=x onerror=alert(2)> "
        "[x](javascript:alert(3)) <a href='https://example.org' onclick='alert(4)'>y</a>"
    )
    assert _settings_post(client, task, text).status_code == 302
    client.logout()
    page = client.get(task.get_absolute_url()).content.decode()
    assert "<strong>bold</strong>" in page
    assert "alert(" not in page and "onerror" not in page and "javascript:" not in page
    assert (
        '<a href="https://example.org" rel="noopener noreferrer nofollow">y</a>' in page
    )


def test_the_console_form_refuses_a_description_over_the_limit(
    client, task, co_organiser
):
    client.force_login(co_organiser)
    response = _settings_post(client, task, TOO_LONG)
    assert response.status_code == 422
    assert response.context["form"].errors["description"] == [LIMIT_MESSAGE]
    assert LIMIT_MESSAGE in response.content.decode()
    task.refresh_from_db()
    assert task.description == "A *test* task."


def test_the_preview_answers_the_forms_message(client, task, co_organiser):
    client.force_login(co_organiser)
    url = reverse("console:markdown-preview")
    answer = client.post(url, {"description": TOO_LONG}).content.decode()
    assert LIMIT_MESSAGE in answer and "aaaa" not in answer
    deep = client.post(url, {"description": ">" * 200 + " deep"}).content.decode()
    assert "nests more than 100 levels deep" in deep and "<blockquote>" not in deep
    fine = client.post(url, {"description": "*fine*"}).content.decode()
    assert "<em>fine</em>" in fine


MANIFEST = """\
slug: bundled
title: Bundled task
description: {description}
task_type: bilingual_term_alignment
settings: {{cap_policy: reject}}
phases: []
"""


def _import(client, description: str):  # noqa: ANN001, ANN202
    bundle = zip_bytes({"task.yaml": MANIFEST.format(description=description).encode()})
    upload = SimpleUploadedFile("task.zip", bundle, content_type="application/zip")
    return client.post(reverse("competitions:bundle-import"), {"bundle": upload})


def test_the_bundle_import_names_the_member_and_the_field(client, organiser):
    client.force_login(organiser)
    response = _import(client, TOO_LONG)
    assert response.status_code == 422
    assert [str(p) for p in response.context["problems"]] == [
        "task.yaml, line 3: 'description' is too long: 50,001 characters; "
        "at most 50,000 are allowed."
    ]
    assert not SharedTask.objects.filter(slug="bundled").exists()
    assert _import(client, "A *bundled* task.").status_code == 302
    task = SharedTask.objects.get(slug="bundled")
    assert task.description_html == "<p>A <em>bundled</em> task.</p>\n"


def test_the_admin_stores_the_rendered_description_and_refuses_the_limit(
    client, django_user_model
):
    admin = django_user_model.objects.create_superuser("root", password="pw-root-1")
    client.force_login(admin)
    data = {
        "slug": "from-admin",
        "title": "From the admin",
        "description": "An *admin* task.",
        "task_type": BUCC,
        "task_settings": '{"cap_policy": "reject"}',
        "state": "draft",
        "organisers": "",
        "phases-TOTAL_FORMS": 0,
        "phases-INITIAL_FORMS": 0,
        "phases-MIN_NUM_FORMS": 0,
        "phases-MAX_NUM_FORMS": 1000,
    }
    url = "/admin/competitions/sharedtask/add/"
    refused = client.post(url, {**data, "description": TOO_LONG})
    assert refused.status_code == 200 and LIMIT_MESSAGE in refused.content.decode()
    assert client.post(url, data).status_code == 302
    task = SharedTask.objects.get(slug="from-admin")
    assert task.description_html == "<p>An <em>admin</em> task.</p>\n"


def test_demo_seeding_stores_every_description_rendered(isolated_storage):  # noqa: ANN001
    from evalhub.competitions.services.data import demo

    tasks = demo.seed_demo(with_runs=False)
    assert tasks
    for task in tasks:
        task.refresh_from_db()
        assert task.description_html == markdown.render(task.description)
        assert task.description_html.strip()
