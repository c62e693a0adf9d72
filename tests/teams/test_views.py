"""Team pages through Django's client: my teams, creating a team, inviting by name
and by link, answering, revoking, leaving."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from evalhub.competitions.models import Team
from evalhub.teams.models import Invitation
from tests.quotes import quoted

pytestmark = pytest.mark.django_db


def _messages(response) -> str:  # noqa: ANN001
    return " ".join(str(m) for m in response.context["messages"])


def test_create_a_team_from_my_teams(client, participant):
    client.force_login(participant)
    page = client.get(reverse("teams:team-list"))
    assert page.status_code == 200
    assert b'<label for="id_name">Team name' in page.content
    response = client.post(reverse("teams:team-create"), {"name": "Gamma"}, follow=True)
    team = Team.objects.get(name="Gamma")
    assert response.redirect_chain[-1][0] == f"/teams/{team.pk}/"
    assert list(team.members.all()) == [participant]
    again = client.post(reverse("teams:team-create"), {"name": "Gamma"})
    assert again.status_code == 422
    assert b"already exists" in again.content


def test_invite_accept_through_the_pages(client, team, participant, bob):
    client.force_login(participant)
    url = reverse("teams:invitation-create", args=[team.pk])
    response = client.post(url, {"who": "bob"}, follow=True)
    assert "bob is invited to Alpha" in _messages(response)
    invitation = Invitation.objects.get(invitee=bob)
    assert b"Pending invitations" in response.content

    client.force_login(bob)
    mine = client.get(reverse("teams:team-list"))
    assert invitation.get_absolute_url().encode() in mine.content
    detail = client.get(invitation.get_absolute_url())
    assert b"Accept and join Alpha" in detail.content and b"Decline" in detail.content
    accepted = client.post(
        reverse("teams:invitation-accept", args=[invitation.pk]), follow=True
    )
    assert accepted.redirect_chain[-1][0] == f"/teams/{team.pk}/"
    assert "You joined Alpha" in _messages(accepted)
    assert team.members.filter(pk=bob.pk).exists()
    # A second click finds it used.
    again = client.post(
        reverse("teams:invitation-accept", args=[invitation.pk]), follow=True
    )
    assert "already in Alpha" in _messages(again)


def test_unknown_invitee_is_reported(client, team, participant):
    client.force_login(participant)
    response = client.post(
        reverse("teams:invitation-create", args=[team.pk]),
        {"who": "ghost"},
        follow=True,
    )
    assert "No account is called 'ghost'" in _messages(response)
    assert not Invitation.objects.exists()


def test_inviting_by_email_shows_the_same_notice_whatever_happened(
    client, team, participant, bob
):
    client.force_login(participant)
    url = reverse("teams:invitation-create", args=[team.pk])
    notices = []
    for who in ("bob@example.org", "nobody@example.org", "bob@example.org"):
        response = client.post(url, {"who": who}, follow=True)
        notices.append(_messages(response).replace(who, "EMAIL"))
        page = response.content.replace(b"bob@example.org", b"")
        assert not quoted(page, ["bob"])
    assert notices[0] == notices[1] == notices[2]
    assert "If EMAIL belongs to an account" in notices[0]
    assert Invitation.objects.get().invitee == bob


def test_decline_and_revoke(client, team, participant, bob):
    client.force_login(participant)
    create = reverse("teams:invitation-create", args=[team.pk])
    client.post(create, {"who": "bob"})
    first = Invitation.objects.get()
    client.force_login(bob)
    client.post(reverse("teams:invitation-decline", args=[first.pk]))
    first.refresh_from_db()
    assert first.status == "declined"

    client.force_login(participant)
    client.post(create, {"who": "bob"})
    second = Invitation.objects.get(status="pending")
    # The invitee cannot revoke; a member can.
    client.force_login(bob)
    assert (
        client.post(reverse("teams:invitation-revoke", args=[second.pk])).status_code
        == 404
    )
    client.force_login(participant)
    client.post(reverse("teams:invitation-revoke", args=[second.pk]))
    second.refresh_from_db()
    assert second.status == "revoked"
    client.force_login(bob)
    page = client.get(second.get_absolute_url())
    assert b"Status: Revoked" in page.content and b"Accept" not in page.content


def test_one_time_link(client, settings, team, participant, bob, outsider):
    settings.SITE_URL = "https://evalhub.example.org"  # not the request's host
    client.force_login(participant)
    response = client.post(
        reverse("teams:invitation-create", args=[team.pk]), {"link": "1"}, follow=True
    )
    link = re.search(
        r"https://evalhub\.example\.org(/teams/join/[\w-]+/)", _messages(response)
    )
    assert link, _messages(response)
    path = link.group(1)
    assert path.encode() in response.content  # listed under pending invitations

    client.force_login(bob)
    page = client.get(path)
    assert page.status_code == 200 and b"Accept and join Alpha" in page.content
    assert b"Decline" not in page.content
    joined = client.post(path, follow=True)
    assert "You joined Alpha" in _messages(joined)

    client.force_login(outsider)
    late = client.post(path, follow=True)
    assert "already accepted" in _messages(late)
    assert not team.members.filter(pk=outsider.pk).exists()
    assert client.get("/teams/join/not-a-token/").status_code == 404


def test_leaving_the_last_member_of_a_team_with_runs_is_refused(
    client, team, participant, submit_run, demo_run
):
    submit_run(demo_run)
    client.force_login(participant)
    response = client.post(reverse("teams:team-leave", args=[team.pk]), follow=True)
    assert "last member of Alpha and it has runs" in _messages(response)
    assert team.members.filter(pk=participant.pk).exists()


def test_team_page_for_the_public(client, team, participant, submit_run, demo_run):
    run = submit_run(demo_run)
    page = client.get(reverse("teams:team-detail", args=[team.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "alice" in html and "BUCC test task" in html
    assert f'href="/runs/{run.pk}/"' in html
    assert "Invite someone" not in html and "Leave" not in html
    assert client.get(reverse("teams:team-detail", args=[9999])).status_code == 404


def test_registration_still_offers_existing_teams(client, task, team, participant):
    client.force_login(participant)
    page = client.get(reverse("competitions:task-register", args=[task.slug]))
    assert f'<option value="{team.pk}">Alpha</option>'.encode() in page.content
