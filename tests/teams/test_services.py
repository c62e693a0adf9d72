"""Team membership services on the real database: invitations by name, by email
and by one-time link; expiry, revocation, declining; leaving."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions.forms import RegisterForm
from evalhub.competitions.models import Registration, SharedTask, Team
from evalhub.competitions.services import teams as registrations
from evalhub.competitions.services.runs import submit
from evalhub.notifications.models import Notification
from evalhub.teams.models import Invitation
from evalhub.teams.services import teams

pytestmark = pytest.mark.django_db


def test_invite_by_username_then_accept_joins_and_tells_both_sides(
    team, participant, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        invitation = teams.invite(team=team, inviter=participant, who="bob")
    assert invitation.invitee == bob and invitation.is_open()
    received = Notification.objects.get(recipient=bob)
    assert received.text == "alice invited you to join team Alpha."
    assert received.link == f"/teams/invitations/{invitation.pk}/"

    with django_capture_on_commit_callbacks(execute=True):
        assert teams.accept(invitation=invitation, user=bob) == team
    assert set(team.members.all()) == {participant, bob}
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.ACCEPTED
    assert invitation.accepted_by == bob
    told = Notification.objects.get(recipient=participant)
    assert "bob accepted the invitation and joined team Alpha" in told.text
    assert not Notification.objects.filter(recipient=bob).exclude(pk=received.pk)


def test_invite_by_email_of_an_existing_account(team, participant, bob):
    invitation = teams.invite(team=team, inviter=participant, who="bob@example.org")
    assert invitation.invitee == bob and invitation.invited_as == "bob@example.org"


def test_an_email_invitation_never_says_whether_or_whose_the_account_is(
    team, participant, bob
):
    """No account, already a member, already invited: nothing sent, no error (the
    page shows the same notice in every case)."""
    assert (
        teams.invite(team=team, inviter=participant, who="nobody@example.org") is None
    )
    participant.email = "alice@example.org"
    participant.save()
    assert teams.invite(team=team, inviter=participant, who="alice@example.org") is None
    assert teams.invite(team=team, inviter=participant, who="BOB@example.org")
    assert teams.invite(team=team, inviter=participant, who="bob@example.org") is None
    assert Invitation.objects.count() == 1


@pytest.mark.parametrize(
    "who, message",
    [
        ("nobody", "No account is called 'nobody'"),
        ("alice", "alice is already in Alpha"),
        ("  ", "Give a username"),
    ],
)
def test_invitations_that_cannot_be_sent(team, participant, who, message):
    with pytest.raises(teams.InvitationError, match=message):
        teams.invite(team=team, inviter=participant, who=who)


def test_one_pending_invitation_per_person_but_a_new_one_after_expiry(
    team, participant, bob
):
    first = teams.invite(team=team, inviter=participant, who="bob")
    with pytest.raises(teams.InvitationError, match="already has a pending"):
        teams.invite(team=team, inviter=participant, who="bob")
    Invitation.objects.filter(pk=first.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    second = teams.invite(team=team, inviter=participant, who="bob")
    assert second.pk != first.pk
    first.refresh_from_db()
    assert first.status == Invitation.Status.REVOKED


def test_only_members_invite(team, outsider, bob):
    with pytest.raises(teams.NotFound):
        teams.invite(team=team, inviter=outsider, who="bob")
    with pytest.raises(teams.NotFound):
        teams.invite_link(team=team, inviter=outsider)


def test_only_the_invitee_answers_a_named_invitation(team, participant, bob, outsider):
    invitation = teams.invite(team=team, inviter=participant, who="bob")
    with pytest.raises(teams.NotFound):
        teams.accept(invitation=invitation, user=outsider)
    with pytest.raises(teams.NotFound):
        teams.decline(invitation=invitation, user=outsider)
    with pytest.raises(teams.NotFound):
        teams.visible_invitation(invitation=invitation, user=outsider)
    assert teams.visible_invitation(invitation=invitation, user=bob) == invitation
    assert teams.visible_invitation(invitation=invitation, user=participant)
    assert not team.members.filter(pk=outsider.pk).exists()


def test_expired_revoked_and_declined_invitations_cannot_be_accepted(
    team, participant, bob
):
    invitation = teams.invite(team=team, inviter=participant, who="bob")
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    invitation.refresh_from_db()
    assert invitation.state_label == "Expired"
    with pytest.raises(teams.InvitationError, match="expired"):
        teams.accept(invitation=invitation, user=bob)

    invitation = teams.invite(team=team, inviter=participant, who="bob")
    teams.revoke(invitation=invitation, user=participant)
    with pytest.raises(teams.InvitationError, match="already revoked"):
        teams.accept(invitation=invitation, user=bob)

    invitation = teams.invite(team=team, inviter=participant, who="bob")
    teams.decline(invitation=invitation, user=bob)
    with pytest.raises(teams.InvitationError, match="already declined"):
        teams.accept(invitation=invitation, user=bob)
    assert not team.members.filter(pk=bob.pk).exists()


def test_only_members_revoke(team, participant, bob, outsider):
    invitation = teams.invite(team=team, inviter=participant, who="bob")
    with pytest.raises(teams.NotFound):
        teams.revoke(invitation=invitation, user=bob)
    with pytest.raises(teams.NotFound):
        teams.revoke(invitation=invitation, user=outsider)


def test_a_link_invitation_is_used_once(team, participant, bob, outsider):
    invitation = teams.invite_link(team=team, inviter=participant)
    assert teams.by_token(token=invitation.token) == invitation
    with pytest.raises(teams.NotFound):
        teams.by_token(token=invitation.token + "x")
    teams.accept(invitation=invitation, user=bob)
    with pytest.raises(teams.InvitationError, match="already accepted"):
        teams.accept(invitation=invitation, user=outsider)
    assert set(team.members.all()) == {participant, bob}


def test_a_joined_member_can_register_the_team_and_submit(
    task, phase, test_set, team, participant, bob, demo_run
):
    """The registration form's "existing team" choice offers teams joined through an
    invitation, and the new member submits for the team."""
    other_task = SharedTask.objects.create(
        slug="other",
        title="Other",
        task_type=task.task_type,
        task_settings=task.task_settings,
        state=SharedTask.State.PUBLISHED,
    )
    teams.accept(
        invitation=teams.invite(team=team, inviter=participant, who="bob"), user=bob
    )
    form = RegisterForm(
        {"existing_team": team.pk}, teams=Team.objects.filter(members=bob)
    )
    assert form.is_valid(), form.errors
    reg = registrations.register(
        task=other_task, user=bob, team=form.cleaned_data["existing_team"]
    )
    assert reg.team == team and reg.status == Registration.Status.APPROVED
    run = submit.submit_run(
        phase=phase, user=bob, filename="run.tsv", data=demo_run, method_name="b"
    )
    assert run.team == team and run.submitter == bob


def test_leaving(team, participant, bob, submit_run, demo_run):
    teams.accept(
        invitation=teams.invite(team=team, inviter=participant, who="bob"), user=bob
    )
    submit_run(demo_run)
    assert teams.leave(team=team, user=bob) is False
    assert list(team.members.all()) == [participant]
    with pytest.raises(teams.NotFound):
        teams.leave(team=team, user=bob)
    with pytest.raises(
        teams.InvitationError, match="last member of Alpha and it has runs"
    ):
        teams.leave(team=team, user=participant)
    assert list(team.members.all()) == [participant]


def test_the_last_member_leaving_a_team_without_runs_deletes_it(participant):
    team = registrations.create_team(name="Solo", user=participant)
    assert teams.leave(team=team, user=participant) is True
    assert not Team.objects.filter(pk=team.pk).exists()


def test_team_page_shows_private_parts_to_members_only(
    task, team, participant, outsider, bob, submit_run, demo_run
):
    submit_run(demo_run)
    with pytest.raises(submit.SubmissionInvalid):
        submit_run(b"not a run\n")
    teams.invite(team=team, inviter=participant, who="bob")
    draft = SharedTask.objects.create(
        slug="draft", title="Draft", task_type=task.task_type, task_settings={}
    )
    registrations.register(task=draft, user=participant, team=team)

    mine = teams.team_page(team=team, user=participant)
    assert mine.is_member and len(mine.invitations) == 1
    assert {r.status for r in mine.runs} == {"queued", "rejected"}
    assert [r.task for r in mine.registrations] == [task]  # not the draft

    theirs = teams.team_page(team=team, user=outsider)
    assert not theirs.is_member and theirs.invitations == ()
    assert {r.status for r in theirs.runs} == {"queued"}
    assert [r.task for r in theirs.registrations] == [task]
    task.registrations.filter(team=team).update(status="pending")
    assert teams.team_page(team=team, user=outsider).registrations == ()
    assert len(teams.team_page(team=team, user=participant).registrations) == 1
    assert list(theirs.members) == [participant]


def test_my_teams_lists_teams_and_open_invitations(team, participant, bob):
    teams.invite(team=team, inviter=participant, who="bob")
    mine = teams.my_teams(user=bob)
    assert mine.teams == () and [i.team for i in mine.received] == [team]
    assert teams.my_teams(user=participant).teams == (team,)


def test_joining_a_second_team_on_the_same_task_is_refused(
    task, team, other_team, participant, outsider
):
    """One team per person and task: otherwise a run could belong to either team."""
    invitation = teams.invite(team=team, inviter=participant, who="mallory")
    with pytest.raises(teams.InvitationError, match="You are in team Mallory's"):
        teams.accept(invitation=invitation, user=outsider)
    assert not team.members.filter(pk=outsider.pk).exists()
    invitation.refresh_from_db()
    assert invitation.is_open()  # still usable once they left the other team
