"""The evaluation after the campaign from the console: before the end the page says
when it becomes possible (no form); once the campaign is over an organiser (or a
co-organiser) opens it, in their time zone, changes its closing date and limits,
and closes it; the dashboard links to it then; nobody else reaches it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import Phase
from evalhub.console.services import people

pytestmark = pytest.mark.django_db


def _end_campaign(phase: Phase) -> None:
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(
        opens_at=now - timedelta(days=30), closes_at=now - timedelta(hours=1)
    )


def _post(**overrides: object) -> dict[str, object]:
    return {
        "time_zone": "Europe/Paris",
        "closes_at": "2099-01-15T12:00",
        "daily_limit": "2",
        "total_limit": "7",
        **overrides,
    }


def _after(task) -> Phase | None:  # noqa: ANN001
    return Phase.objects.filter(task=task, after_campaign=True).first()


def test_before_the_end_the_page_says_when_it_becomes_possible(
    client, organiser, task, phase, test_set
):
    url = reverse("console:after-campaign", args=[task.slug])
    client.force_login(organiser)
    response = client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    end = phase.closes_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    assert f"The campaign runs until {end} UTC" in page
    assert "opens once its last phase has closed" in page
    assert 'name="closes_at"' not in page  # no form to fail
    assert "separate board" in page and "never appear in the official" in page
    assert test_set.name in page  # the test sets it would copy
    response = client.post(url, _post())
    assert response.status_code == 409
    assert "opens once its last phase has closed" in response.content.decode()
    assert _after(task) is None
    dashboard = reverse("competitions:task-dashboard", args=[task.slug])
    assert url not in client.get(dashboard).content.decode()


def test_an_organiser_opens_changes_and_closes_it(
    client, organiser, task, phase, test_set
):
    _end_campaign(phase)
    url = reverse("console:after-campaign", args=[task.slug])
    client.force_login(organiser)
    dashboard = reverse("competitions:task-dashboard", args=[task.slug])
    assert url in client.get(dashboard).content.decode()
    page = client.get(url).content.decode()
    assert 'name="closes_at"' in page and "not open for evaluation" in page

    response = client.post(url, _post())
    assert response.status_code == 302
    after = _after(task)
    # Paris is UTC+1 in January.
    assert after.closes_at == datetime(2099, 1, 15, 11, 0, tzinfo=UTC)
    assert (after.daily_limit, after.total_limit) == (2, 7)
    assert [ts.slug for ts in after.test_sets.all()] == [test_set.slug]
    page = client.get(url).content.decode()
    assert "Open for evaluation after the campaign until" in page
    assert "2099-01-15 11:00 UTC" in page
    board = reverse("competitions:leaderboard-detail", args=[task.slug, after.slug])
    assert board in page
    assert "until" in client.get(dashboard).content.decode()

    response = client.post(url, _post(closes_at="2099-02-01T00:00", daily_limit="4"))
    assert response.status_code == 302
    after.refresh_from_db()
    assert after.closes_at == datetime(2099, 1, 31, 23, 0, tzinfo=UTC)
    assert after.daily_limit == 4
    assert Phase.objects.filter(task=task, after_campaign=True).count() == 1

    close = reverse("console:after-campaign-close", args=[task.slug])
    assert client.get(close).status_code == 405
    assert client.post(close).status_code == 302
    after.refresh_from_db()
    assert after.closes_at <= timezone.now()
    page = client.get(url).content.decode()
    assert "Closed since" in page and board in page
    response = client.post(close, follow=True)
    assert "not open for evaluation after the campaign" in response.content.decode()


def test_bad_values_are_shown_at_their_fields(client, organiser, task, phase):
    _end_campaign(phase)
    url = reverse("console:after-campaign", args=[task.slug])
    client.force_login(organiser)
    response = client.post(url, _post(closes_at="2001-01-01T00:00", daily_limit="0"))
    assert response.status_code == 422
    form = response.context["form"]
    assert "daily_limit" in form.errors
    response = client.post(url, _post(closes_at="2001-01-01T00:00"))
    assert response.status_code == 422
    assert "must close in the future" in response.content.decode()
    response = client.post(url, _post(time_zone="Atlantis/Capital"))
    assert "is not a time zone" in response.content.decode()
    assert _after(task) is None


def test_nobody_but_its_organisers_reaches_it(
    client, organiser, task, phase, participant, team, django_user_model
):
    _end_campaign(phase)
    url = reverse("console:after-campaign", args=[task.slug])
    close = reverse("console:after-campaign-close", args=[task.slug])
    other = django_user_model.objects.create_user("other-org", is_staff=True)
    for who in (None, participant, other):
        client.logout()
        if who is not None:
            client.force_login(who)
        want = 302 if who is None else 404
        assert client.get(url).status_code == want, who
        assert client.post(url, _post()).status_code == want, who
        assert client.post(close).status_code == want, who
        if who is None:
            assert "/login/" in client.get(url)["Location"]
    assert _after(task) is None
    # A co-organiser does what the organiser does.
    co = django_user_model.objects.create_user("co", is_staff=True)
    people.add_organiser(task=task, username=co.username)
    client.force_login(co)
    assert client.post(url, _post()).status_code == 302
    assert client.post(close).status_code == 302
    assert _after(task).closes_at <= timezone.now()


def test_the_page_is_in_the_console_navigation(client, organiser, task, phase):
    client.force_login(organiser)
    page = client.get(reverse("console:phases", args=[task.slug])).content.decode()
    nav = re.search(r'<nav class="meta console-nav".*?</nav>', page)[0]
    assert reverse("console:after-campaign", args=[task.slug]) in nav
