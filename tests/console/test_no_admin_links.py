"""Nothing an organiser needs links to the Django admin (issue 29): the dashboard
links to the console's *Runs* page instead of the admin's list of runs, and no page
links to the admin, whoever views it (a superuser who organises a task sees the same
header; the admin stays reachable by its address for what only it does)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_dashboard_links_to_the_runs_page_and_no_organiser_page_to_the_admin(
    client, organiser, task, phase, test_set
):
    client.force_login(organiser)
    pages = [
        reverse("competitions:task-list"),
        reverse("competitions:task-dashboard", args=[task.slug]),
        reverse("competitions:task-rescoring", args=[task.slug]),
        reverse("console:testsets", args=[task.slug]),
        reverse("console:task-create"),
        reverse("console:runs", args=[task.slug]),
        *(
            reverse(f"console:{name}", args=[task.slug])
            for name in ("task-settings", "phases", "organisers", "announcements")
        ),
    ]
    dashboard = client.get(pages[1]).content.decode()
    assert reverse("console:runs", args=[task.slug]) in dashboard
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "/admin/" not in response.content.decode(), url


def test_not_even_a_superuser_is_shown_an_admin_link(client, django_user_model):
    root = django_user_model.objects.create_superuser("root", password="pw-root-1")
    client.force_login(root)
    assert reverse("admin:index") not in client.get("/").content.decode()


TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
ADMIN_LINK = re.compile(r"""\{%\s*url\s+['"]admin:|/admin/""")


def test_no_template_links_an_organiser_to_the_admin():
    found = []
    for path in TEMPLATES.rglob("*.html"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if ADMIN_LINK.search(line):
                found.append(f"{path.relative_to(TEMPLATES)}:{number}")
    assert found == []
