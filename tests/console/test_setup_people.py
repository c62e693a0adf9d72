"""Co-organisers, announcements (notified to every member of every approved team),
previews as a participant and as the public, and the dashboard's checklist."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import Registration
from evalhub.competitions.services import teams
from evalhub.console.models import Announcement
from evalhub.notifications.models import Notification

pytestmark = pytest.mark.django_db


def test_organisers_are_added_by_name_and_the_last_one_stays(
    client, organiser, task, django_user_model
):
    bob = django_user_model.objects.create_user("bob")
    client.force_login(organiser)
    url = reverse("console:organisers", args=[task.slug])
    response = client.post(url, {"username": "nobody"})
    assert response.status_code == 422
    assert "no user named 'nobody'" in response.context["form"].errors["username"][0]
    assert client.post(url, {"username": "bob"}).status_code == 302
    assert set(task.organisers.all()) == {organiser, bob}
    remove_bob = reverse("console:organiser-remove", args=[task.slug, bob.pk])
    assert client.post(remove_bob).status_code == 302
    assert list(task.organisers.all()) == [organiser]
    remove_me = reverse("console:organiser-remove", args=[task.slug, organiser.pk])
    client.post(remove_me)
    assert list(task.organisers.all()) == [organiser]  # the last one stays
    assert client.get(remove_me).status_code == 405


def test_a_participant_cannot_become_organiser(client, organiser, task, team):
    client.force_login(organiser)
    url = reverse("console:organisers", args=[task.slug])
    response = client.post(url, {"username": "alice"})
    assert response.status_code == 422
    assert "registered for this task" in str(response.context["form"].errors)
    assert list(task.organisers.all()) == [organiser]


def test_removing_oneself_leaves_the_console(
    client, organiser, task, django_user_model
):
    bob = django_user_model.objects.create_user("bob")
    task.organisers.add(bob)
    client.force_login(organiser)
    remove_me = reverse("console:organiser-remove", args=[task.slug, organiser.pk])
    assert client.post(remove_me)["Location"] == reverse("competitions:task-list")
    assert (
        client.get(reverse("console:organisers", args=[task.slug])).status_code == 404
    )


def test_announcements_reach_every_member_of_every_approved_team(
    client,
    organiser,
    task,
    team,
    other_team,
    django_user_model,
    django_capture_on_commit_callbacks,
):
    carol = django_user_model.objects.create_user("carol")
    team.members.add(carol)
    pending_user = django_user_model.objects.create_user("dave")
    task.requires_approval = True
    task.save()
    pending = teams.register(task=task, user=pending_user, new_team_name="Pending")
    assert pending.status == Registration.Status.PENDING
    client.force_login(organiser)
    url = reverse("console:announcements", args=[task.slug])
    text = "Deadline moved <b>by a day</b>"
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, {"text": text}).status_code == 302
    ann = Announcement.objects.get()
    assert ann.text == text and ann.author == organiser
    got = Notification.objects.filter(key=f"announcement:{ann.pk}")
    assert {n.recipient.username for n in got} == {"alice", "carol", "mallory"}
    assert all(text in n.text for n in got)
    page = client.get(url).content.decode()
    assert "Deadline moved &lt;b&gt;by a day&lt;/b&gt;" in page  # plain text
    alice = client.__class__()
    alice.force_login(team.members.get(username="alice"))
    bell = alice.get(reverse("notifications:notification-list")).content.decode()
    assert "&lt;b&gt;by a day&lt;/b&gt;" in bell and "<b>by a day" not in bell
    assert len(client.post(url, {"text": "x" * 221}).context["form"].errors) == 1


def test_people_pages_are_for_the_tasks_organisers_only(
    client, task, team, participant, django_user_model
):
    other = django_user_model.objects.create_user("org2", is_staff=True)
    organiser = task.organisers.get()
    for user in (participant, other):
        client.force_login(user)
        for name in ("organisers", "announcements"):
            url = reverse(f"console:{name}", args=[task.slug])
            assert client.get(url).status_code == 404
            assert (
                client.post(url, {"username": user.username, "text": "hi"}).status_code
                == 404
            )
        remove = reverse("console:organiser-remove", args=[task.slug, organiser.pk])
        assert client.post(remove).status_code == 404
    assert list(task.organisers.all()) == [organiser]
    assert not Announcement.objects.exists()


def test_previews_show_what_others_see_and_only_to_organisers(
    client, organiser, task, phase, test_set, participant, django_user_model
):
    task.state = "draft"
    task.save()
    public = reverse("console:preview-public", args=[task.slug])
    as_participant = reverse("console:preview-participant", args=[task.slug])
    board = reverse("console:preview-leaderboard", args=[task.slug, phase.slug])
    other = django_user_model.objects.create_user("org2", is_staff=True)
    for user in (participant, other):
        client.force_login(user)
        for url in (public, as_participant, board):
            assert client.get(url).status_code == 404
    client.force_login(organiser)
    page = client.get(public).content.decode()
    assert "Preview" in page and "the public will see it" in page
    assert "still a draft" in page
    assert "Log in</a> or" in page  # as the anonymous public sees it
    assert "(gold)" not in page and "you organise this task" not in page
    page = client.get(as_participant).content.decode()
    assert "Your team <strong>Your team</strong>" in page
    assert "Submit a run" in page and "(gold)" not in page
    response = client.get(board)
    assert response.status_code == 200 and "Preview" in response.content.decode()
    assert (
        client.get(
            reverse("console:preview-leaderboard", args=[task.slug, "nope"])
        ).status_code
        == 404
    )


def test_the_checklist_names_what_is_missing_with_links(client, organiser, task):
    client.force_login(organiser)
    dashboard = reverse("competitions:task-dashboard", args=[task.slug])
    task.description = ""
    task.state = "draft"
    task.save()
    page = client.get(dashboard).content.decode()
    assert "Before the task can open" in page
    assert "The task has no description." in page
    assert "The task has no phase." in page
    assert reverse("console:phase-create", args=[task.slug]) in page
    assert "still a draft" in page
    assert "in the admin" not in page
    assert reverse("console:task-settings", args=[task.slug]) in page


def test_the_checklist_follows_phases_test_sets_and_files(
    organiser, task, phase, test_set
):
    from evalhub.console.services.checklist import checklist

    assert [i.text for i in checklist(task=task)] == []
    test_set.files.filter(private=True).delete()
    texts = [i.text for i in checklist(task=task)]
    assert texts == [
        "Test set Public (Evaluation) has no gold file Gold dictionary (D1,2)."
    ]
    test_set.delete()
    phase.closes_at = timezone.now() - timedelta(minutes=1)
    phase.save()
    texts = [i.text for i in checklist(task=task)]
    assert texts == ["Phase Evaluation has no test set."]  # the campaign is over
    task.state = "draft"
    task.save()
    texts = [i.text for i in checklist(task=task)]
    assert texts == [
        "Phase Evaluation closed already.",
        "Phase Evaluation has no test set.",
        "The task is still a draft: only organisers see it.",
    ]
