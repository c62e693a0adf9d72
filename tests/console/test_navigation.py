"""One console navigation: every console page of a task (the console's own, the
ranking page rankings provides, the data terms and participants pages participation
provides, the embeds page, the fact-sheet questions, the tracks pages and the
MT probing task's probe-set and annotator pages) shows the same navigation, in
the same order, its own page marked."""

from __future__ import annotations

import re

import pytest
from django.urls import NoReverseMatch, reverse

from evalhub.competitions.services.data import tracks
from evalhub.factsheets.models import Question
from tests.annotations.fixtures import (  # noqa: F401  (fixtures)
    mt_demo,
    mt_task,
    mt_test_set,
)

pytestmark = pytest.mark.django_db

LABELS = [
    "Dashboard",
    "Settings",
    "Phases",
    "Tracks",
    "Test sets and gold",
    "Ranking",
    "Embeds",  # the embeds app's page (console:embeds)
    "Fact sheet",
    "Organisers",
    "Announcements",
    "Data terms",
    "Participants",
    "Messages",  # served by the mailings app in the console's namespace
    "Runs",  # once the console's runs page exists (console:runs)
    "After the campaign",
    "Preview as a participant",
    "Preview as the public",
]


def _expected() -> list[str]:
    try:
        reverse("console:runs", args=["any"])
    except NoReverseMatch:
        return [label for label in LABELS if label != "Runs"]
    return LABELS


_NAV = re.compile(
    r'<nav class="meta console-nav" aria-label="Organiser console">(.*?)</nav>'
)
_LINK = re.compile(r'<a href="([^"]+)"( aria-current="page")?>([^<]+)</a>')


def _nav(client, url: str) -> list[tuple[str, str, bool]]:  # noqa: ANN001
    response = client.get(url)
    assert response.status_code == 200, url
    found = _NAV.findall(response.content.decode())
    assert len(found) == 1, (url, found)
    return [(label, href, bool(cur)) for href, cur, label in _LINK.findall(found[0])]


def test_every_console_page_has_the_same_navigation(
    client, organiser, task, phase, test_set, private_test_set
):
    closed = tracks.save_track(phase=phase, slug="closed", name="Closed")
    question = Question.objects.create(task=task, key="data", label="Data?")
    slug, ph = task.slug, phase.slug
    pages = [
        reverse("console:task-settings", args=[slug]),
        reverse("console:phases", args=[slug]),
        reverse("console:phase-create", args=[slug]),
        reverse("console:phase-edit", args=[slug, ph]),
        reverse("console:track-list", args=[slug, ph]),
        reverse("console:track-edit", args=[slug, ph, closed.slug]),
        reverse("console:testsets", args=[slug]),
        reverse("console:testset-create", args=[slug]),
        reverse("console:testset-edit", args=[slug, test_set.pk]),
        reverse("console:testset-files", args=[slug, test_set.pk]),
        reverse("console:testset-visibility", args=[slug, test_set.pk]),
        reverse("console:testset-reveal", args=[slug, private_test_set.pk]),
        reverse("console:gold-release", args=[slug]),
        reverse("console:ranking", args=[slug, ph]),
        reverse("console:embeds", args=[slug]),
        reverse("factsheets:question-list", args=[slug]),
        reverse("factsheets:question-edit", args=[slug, question.pk]),
        reverse("console:organisers", args=[slug]),
        reverse("console:announcements", args=[slug]),
        reverse("console:messages", args=[slug]),
        reverse("console:message-create", args=[slug]),
        reverse("console:after-campaign", args=[slug]),
        reverse("console:data-terms", args=[slug]),
        reverse("console:participants", args=[slug]),
    ]
    client.force_login(organiser)
    navs = {url: _nav(client, url) for url in pages}
    first = next(iter(navs.values()))
    assert [label for label, _, _ in first] == _expected()
    links = {label: href for label, href, _ in first}
    assert links["Tracks"] == reverse("console:track-list", args=[slug, ph])
    assert links["Ranking"] == reverse("console:ranking", args=[slug, ph])
    assert links["Fact sheet"] == reverse("factsheets:question-list", args=[slug])
    for url, nav in navs.items():
        assert [(label, href) for label, href, _ in nav] == list(links.items()), url
        marked = [label for label, href, current in nav if current]
        assert marked == ([label for label, href in links.items() if href == url])


def test_the_answers_page_has_it_for_organisers_only(
    client, organiser, task, phase, participant, team
):
    url = reverse("factsheets:team-sheets", args=[task.slug, phase.slug])
    client.force_login(organiser)
    assert [label for label, _, _ in _nav(client, url)] == _expected()
    client.force_login(participant)
    page = client.get(url)
    assert page.status_code == 200
    assert "Organiser console" not in page.content.decode()


def test_the_probe_set_and_annotator_pages_have_it(client, organiser, mt_test_set):  # noqa: F811
    task = mt_test_set.phase.task
    client.force_login(organiser)
    for name in ("annotations:probe-set-build", "annotations:annotator-list"):
        nav = _nav(client, reverse(name, args=[task.slug]))
        assert [label for label, _, _ in nav] == _expected(), name


def test_per_phase_pages_open_for_their_phase(client, organiser, task, phase):
    from evalhub.competitions.models import Phase

    final = Phase.objects.create(
        task=task, slug="final", name="Final", order=1,
        opens_at=phase.opens_at, closes_at=phase.closes_at,
    )  # fmt: skip
    client.force_login(organiser)
    page = reverse("console:ranking", args=[task.slug, final.slug])
    links = {label: href for label, href, _ in _nav(client, page)}
    assert links["Ranking"] == page
    assert links["Tracks"] == reverse("console:track-list", args=[task.slug, "final"])
    text = client.get(page).content.decode()
    evaluation = reverse("console:ranking", args=[task.slug, phase.slug])
    assert f'<a href="{evaluation}">Evaluation</a>' in text
    assert '<strong aria-current="page">Final</strong>' in text
