"""Phases in the console: times entered in the organiser's time zone and stored in
UTC, reordering, and the confirmation a change needs when runs are affected."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import Phase, Submission

pytestmark = pytest.mark.django_db


def _post(**overrides: object) -> dict[str, object]:
    data = {
        "name": "Evaluation",
        "slug": "evaluation",
        "time_zone": "Europe/Paris",
        "opens_at": "2030-03-01T09:00",
        "closes_at": "2030-03-31T18:30",
        "daily_limit": "3",
        "total_limit": "10",
        "max_final_runs": "2",
    }
    data.update(overrides)
    return data


def test_a_phase_is_entered_in_a_time_zone_and_stored_in_utc(client, organiser, task):
    client.force_login(organiser)
    url = reverse("console:phase-create", args=[task.slug])
    assert client.get(url).status_code == 200
    response = client.post(url, _post())
    assert response.status_code == 302
    phase = Phase.objects.get(task=task, slug="evaluation")
    # Paris is UTC+1 in March before the switch, UTC+2 after (30 March 2030).
    assert phase.opens_at == datetime(2030, 3, 1, 8, 0, tzinfo=UTC)
    assert phase.closes_at == datetime(2030, 3, 31, 16, 30, tzinfo=UTC)
    assert (phase.daily_limit, phase.total_limit, phase.max_final_runs) == (3, 10, 2)
    listing = client.get(reverse("console:phases", args=[task.slug])).content.decode()
    assert "2030-03-01 08:00 UTC" in listing


def test_the_browser_zone_is_the_default(client, organiser, task):
    client.force_login(organiser)
    client.cookies["tz"] = "Asia/Tokyo"
    page = client.get(reverse("console:phase-create", args=[task.slug]))
    assert page.context["form"].fields["time_zone"].initial == "Asia/Tokyo"


def test_closing_before_opening_and_taken_slugs_are_refused(
    client, organiser, task, phase
):
    client.force_login(organiser)
    url = reverse("console:phase-create", args=[task.slug])
    response = client.post(url, _post(closes_at="2030-02-01T00:00"))
    assert response.status_code == 422
    errors = response.context["form"].errors
    assert "close after it opens" in str(errors["closes_at"])
    assert "has a phase with this address" in str(errors["slug"])


def test_phases_are_reordered(client, organiser, task, phase):
    client.force_login(organiser)
    client.post(
        reverse("console:phase-create", args=[task.slug]),
        _post(slug="second", name="Second"),
    )
    second = Phase.objects.get(task=task, slug="second")
    assert list(task.phases.values_list("slug", flat=True)) == ["evaluation", "second"]
    move = reverse("console:phase-move", args=[task.slug, second.slug])
    assert client.post(move, {"direction": "up"}).status_code == 302
    assert list(task.phases.values_list("slug", flat=True)) == ["second", "evaluation"]
    assert client.get(move).status_code == 405


def _run(phase, team, *, final=False, when=None):  # noqa: ANN001, ANN202
    sub = Submission.objects.create(
        phase=phase, team=team, method_name="m", status=Submission.Status.SCORED,
        final_selected=final,
    )  # fmt: skip
    if when:
        Submission.objects.filter(pk=sub.pk).update(created_at=when)
    return sub


def test_a_change_affecting_runs_needs_confirmation(
    client, organiser, task, phase, team
):
    for _ in range(3):
        _run(phase, team, final=True)
    client.force_login(organiser)
    url = reverse("console:phase-edit", args=[task.slug, phase.slug])
    zone = "UTC"
    now = timezone.now()
    data = _post(
        time_zone=zone,
        opens_at=(now + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
        closes_at=(now + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"),
        daily_limit="2", total_limit="2", max_final_runs="1",
    )  # fmt: skip
    response = client.post(url, data)
    assert response.status_code == 409
    text = " ".join(response.context["warnings"])
    assert "3 runs already made would lie outside" in text
    assert "more than the new daily limit of 2" in text
    assert "more than the new total limit of 2" in text
    assert "chosen 3 final runs, more than the new limit of 1" in text
    phase.refresh_from_db()
    assert phase.daily_limit == 3  # nothing saved
    assert client.post(url, {**data, "confirm": "on"}).status_code == 302
    phase.refresh_from_db()
    assert (phase.daily_limit, phase.total_limit, phase.max_final_runs) == (2, 2, 1)


def test_a_harmless_change_saves_at_once(client, organiser, task, phase, team):
    _run(phase, team)
    client.force_login(organiser)
    url = reverse("console:phase-edit", args=[task.slug, phase.slug])
    data = _post(
        time_zone="UTC",
        opens_at=(phase.opens_at - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"),
        closes_at=(phase.closes_at + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"),
        daily_limit="9", total_limit="99", max_final_runs="1",
    )  # fmt: skip
    assert client.post(url, data).status_code == 302


def test_phase_pages_are_for_the_tasks_organisers_only(
    client, task, phase, participant, django_user_model
):
    other = django_user_model.objects.create_user("org2", is_staff=True)
    urls = [
        reverse("console:phases", args=[task.slug]),
        reverse("console:phase-create", args=[task.slug]),
        reverse("console:phase-edit", args=[task.slug, phase.slug]),
    ]
    for user in (participant, other):
        client.force_login(user)
        for url in urls:
            assert client.get(url).status_code == 404
            assert client.post(url, _post(slug="x")).status_code == 404
        move = reverse("console:phase-move", args=[task.slug, phase.slug])
        assert client.post(move, {"direction": "down"}).status_code == 404
    assert list(task.phases.values_list("slug", flat=True)) == ["evaluation"]


def test_an_empty_slug_is_made_from_the_name(client, organiser, task):
    client.force_login(organiser)
    url = reverse("console:phase-create", args=[task.slug])
    response = client.post(url, _post(name="Final Évaluation 2", slug=""))
    assert response.status_code == 302
    assert Phase.objects.filter(task=task, slug="final-evaluation-2").exists()
    # The same name again: the made slug is taken, said at the slug.
    response = client.post(url, _post(name="Final Évaluation 2", slug=""))
    assert response.status_code == 422
    assert "has a phase with this address" in str(response.context["form"].errors)
    response = client.post(url, _post(name="!!!", slug=""))
    assert response.status_code == 422
    assert "Give the phase a name or an address" in str(
        response.context["form"].errors["slug"]
    )


def test_the_time_zone_is_searchable_with_the_organisers_zone_first(
    client, organiser, task
):
    client.force_login(organiser)
    client.cookies["tz"] = "Asia/Tokyo"
    page = client.get(reverse("console:phase-create", args=[task.slug]))
    text = page.content.decode()
    field = re.search(r'<input[^>]*name="time_zone"[^>]*>', text).group(0)
    assert 'list="time-zones"' in field and 'value="Asia/Tokyo"' in field
    options = re.findall(r'<option value="([^"]+)">', text.split('id="time-zones"')[1])
    assert options[0] == "Asia/Tokyo" and "Europe/Paris" in options
    assert len(options) == len(set(options)) > 300
    response = client.post(
        reverse("console:phase-create", args=[task.slug]),
        _post(time_zone="Mars/Olympus"),
    )
    assert response.status_code == 422
    assert "time_zone" in response.context["form"].errors
