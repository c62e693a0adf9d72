"""A team size cap per task (issue 44, item 5), set on the console's settings page:
invitations, joins (named invitations and links) and registrations over it are
refused with a message that names the task and its cap."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.models import Registration, SharedTask, Team
from evalhub.teams.models import Invitation
from tests.rules.test_pause import settings_form_data

pytestmark = pytest.mark.django_db

FULL = (
    "BUCC test task allows at most 2 members per team and team Alpha has 2: it "
    "cannot take another member."
)


def _cap(client, organiser, task, size: str) -> None:  # noqa: ANN001
    client.force_login(organiser)
    url = reverse("console:task-settings", args=[task.slug])
    data = settings_form_data(client, url)
    data["max_team_size"] = size
    assert client.post(url, data).status_code == 302
    task.refresh_from_db()


def _messages(response) -> list[str]:  # noqa: ANN001
    return [str(m) for m in response.context["messages"]]


def test_invitations_and_joins_over_the_cap_are_refused(
    client, organiser, participant, task, team, django_user_model
):
    bob, carol, dave = (
        django_user_model.objects.create_user(name) for name in ("bob", "carol", "dave")
    )
    _cap(client, organiser, task, "2")
    assert task.max_team_size == 2
    client.force_login(participant)
    invite = reverse("teams:invitation-create", args=[team.pk])
    client.post(invite, {"who": "bob"})
    client.post(invite, {"who": "carol"})  # both pending: the cap counts members
    link = client.post(invite, {"link": "1"})
    assert link.status_code == 302
    to_bob, to_carol = (Invitation.objects.get(invitee=user) for user in (bob, carol))
    token = Invitation.objects.get(invitee__isnull=True).token

    client.force_login(bob)
    client.post(reverse("teams:invitation-accept", args=[to_bob.pk]))
    assert set(team.members.values_list("username", flat=True)) == {"alice", "bob"}

    client.force_login(carol)
    refused = client.post(
        reverse("teams:invitation-accept", args=[to_carol.pk]), follow=True
    )
    assert FULL in _messages(refused)
    client.force_login(dave)
    refused = client.post(reverse("teams:invitation-join", args=[token]), follow=True)
    assert FULL in _messages(refused)
    assert team.members.count() == 2
    # Both invitations stay open: they can be used once there is room again.
    assert Invitation.objects.filter(status="pending").count() == 2

    client.force_login(participant)
    refused = client.post(invite, {"who": "dave"}, follow=True)
    assert FULL in _messages(refused)
    refused = client.post(invite, {"link": "1"}, follow=True)
    assert FULL in _messages(refused)
    assert not Invitation.objects.filter(invitee=dave).exists()

    # Raised cap: carol joins.
    _cap(client, organiser, task, "3")
    client.force_login(carol)
    client.post(reverse("teams:invitation-accept", args=[to_carol.pk]))
    assert team.members.count() == 3


def test_a_team_over_the_cap_cannot_register(
    client, participant, task, django_user_model
):
    team = Team.objects.create(name="Big")
    team.members.add(
        participant, *(django_user_model.objects.create_user(n) for n in "xyz")
    )
    SharedTask.objects.filter(pk=task.pk).update(max_team_size=3)
    client.force_login(participant)
    page = client.post(
        reverse("competitions:task-register", args=[task.slug]),
        {"existing_team": team.pk},
    )
    assert page.status_code == 200
    assert (
        "BUCC test task allows at most 3 members per team and team Big has 4: it "
        "cannot register until it is smaller." in page.content.decode()
    )
    assert not Registration.objects.exists()


def test_no_cap_no_refusal(client, participant, task, team, django_user_model):
    bob = django_user_model.objects.create_user("bob")
    client.force_login(participant)
    client.post(reverse("teams:invitation-create", args=[team.pk]), {"who": "bob"})
    client.force_login(bob)
    client.post(
        reverse(
            "teams:invitation-accept", args=[Invitation.objects.get(invitee=bob).pk]
        )
    )
    assert team.members.count() == 2
