"""The organisers' tracks pages: who may see and change them (organisers of the
task only: 404 for participants, other teams and organisers of another task; a
login first for anonymous visitors), and what they do (add, edit, reorder, delete
while unused, the limit rule), with clear errors; plain text stays text."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from evalhub.competitions.models import SharedTask, Track
from evalhub.competitions.services.data import tracks

pytestmark = pytest.mark.django_db


@pytest.fixture
def closed(phase):  # noqa: ANN001, ANN201
    return tracks.save_track(
        phase=phase, slug="closed", name="Closed", description="<b>training</b> only"
    )


def _urls(closed) -> list[tuple[str, str]]:  # noqa: ANN001
    args = ["bucc-test", "evaluation"]
    return [
        ("get", reverse("console:track-list", args=args)),
        ("get", reverse("console:track-edit", args=[*args, "closed"])),
        ("post", reverse("console:track-list", args=args)),
        ("post", reverse("console:track-edit", args=[*args, "closed"])),
        ("post", reverse("console:track-move", args=[*args, "closed"])),
        ("post", reverse("console:track-delete", args=[*args, "closed"])),
        ("post", reverse("console:track-limits", args=args)),
    ]


def test_only_the_tasks_organisers_get_in(
    closed, participant, team, outsider, organiser, django_user_model, bucc_demo
):
    other_organiser = django_user_model.objects.create_user("org2")
    other = SharedTask.objects.create(
        slug="other", title="Other", task_type="bilingual_term_alignment",
        task_settings=dict(bucc_demo.settings), state="published",
    )  # fmt: skip
    other.organisers.add(other_organiser)
    staff = django_user_model.objects.create_user("staffer", is_staff=True)
    data = {"slug": "evil", "name": "Evil", "direction": "up"}
    for user in (participant, outsider, other_organiser, staff):
        client = Client()
        client.force_login(user)
        for method, url in _urls(closed):
            response = getattr(client, method)(url, data)
            assert response.status_code == 404, (user, method, url)
    anonymous = Client()
    for method, url in _urls(closed):
        response = getattr(anonymous, method)(url, data)
        assert response.status_code == 302 and "/login" in response["Location"]
    # Nothing changed.
    assert [(t.slug, t.name) for t in Track.objects.all()] == [("closed", "Closed")]
    client = Client()
    client.force_login(organiser)
    for _method, url in _urls(closed)[:2]:
        assert client.get(url).status_code == 200


def test_organiser_adds_edits_reorders_and_deletes(closed, phase, organiser, client):
    client.force_login(organiser)
    base = reverse("console:track-list", args=["bucc-test", "evaluation"])
    page = client.get(base)
    assert b"&lt;b&gt;training&lt;/b&gt; only" in page.content  # plain text
    response = client.post(
        base, {"slug": "open", "name": "Open", "description": "anything"}
    )
    assert response.status_code == 302
    assert [t.slug for t in tracks.phase_tracks(phase)] == ["closed", "open"]
    again = client.post(base, {"slug": "open", "name": "Again"})
    assert again.status_code == 422
    assert b"already has a track" in again.content
    bad = client.post(base, {"slug": "o p", "name": "Bad"})
    assert bad.status_code == 422
    client.post(f"{base}open/move/", {"direction": "up"})
    assert [t.slug for t in tracks.phase_tracks(phase)] == ["open", "closed"]
    client.post(f"{base}open/", {"slug": "open", "name": "Open (any data)"})
    assert Track.objects.get(slug="open").name == "Open (any data)"
    client.post(f"{base}limits/", {"limits_per_track": "on"})
    phase.refresh_from_db()
    assert phase.limits_per_track
    client.post(f"{base}open/delete/")
    assert [t.slug for t in tracks.phase_tracks(phase)] == ["closed"]


def test_a_used_track_cannot_be_deleted_from_the_page(
    closed, phase, organiser, client, submit_run, demo_run
):
    submit_run(demo_run, track="closed")
    client.force_login(organiser)
    base = reverse("console:track-list", args=["bucc-test", "evaluation"])
    response = client.post(f"{base}closed/delete/", follow=True)
    assert b"1 run use track" in response.content
    assert Track.objects.filter(slug="closed").exists()


def test_the_dashboard_links_the_tracks_page(phase, organiser, client):
    client.force_login(organiser)
    page = client.get(reverse("competitions:task-dashboard", args=["bucc-test"]))
    assert reverse("console:track-list", args=["bucc-test", "evaluation"]).encode() in (
        page.content
    )


def test_a_track_left_without_a_slug_takes_its_name_s(phase, organiser, client):
    client.force_login(organiser)
    url = reverse("console:track-list", args=["bucc-test", "evaluation"])
    response = client.post(url, {"name": "Open Data", "slug": ""})
    assert response.status_code == 302
    assert Track.objects.get(phase=phase).slug == "open-data"
    response = client.post(url, {"name": "", "slug": ""})
    assert response.status_code == 422
    assert "Give the track a name or a slug." in response.content.decode()


def test_console_forms_make_slugs_by_one_rule():
    """Only ``console/slugs.py`` turns a name into an address (phase, test set,
    track): no other console module calls ``slugify``."""
    from pathlib import Path

    import evalhub.console

    root = Path(evalhub.console.__file__).parent
    callers = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "slugify" in path.read_text() and path.name != "slugs.py"
    )
    assert callers == []
