"""Team membership: my teams, the team page, invitations (by name, by email of an
existing account, or a one-time link), accepting, declining, revoking, leaving.

Team creation and registrations stay in ``evalhub.competitions.services.teams``;
this module only decides who is in a team.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from evalhub.competitions.models import Registration, SharedTask, Submission, Team
from evalhub.competitions.services import roles
from evalhub.competitions.services import teams as registrations
from evalhub.competitions.services.boards import access
from evalhub.teams import signals
from evalhub.teams.models import Invitation


class InvitationError(Exception):
    """A request about an invitation or a membership that cannot be done; the
    message says why, for the user."""


class NotFound(Exception):
    """The user may not see this team's or invitation's private side."""


@dataclass(frozen=True, slots=True)
class TeamPage:
    team: Team
    is_member: bool
    members: tuple[object, ...]
    registrations: tuple[Registration, ...]
    runs: tuple[Submission, ...]
    invitations: tuple[Invitation, ...]  # pending ones, members only


@dataclass(frozen=True, slots=True)
class MyTeams:
    teams: tuple[Team, ...]
    received: tuple[Invitation, ...]  # open invitations addressed to the user


def is_member(*, team: Team, user: object) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return team.members.filter(pk=user.pk).exists()  # type: ignore[attr-defined]


def _visible_tasks(user: object, path: str) -> Q:
    """Rows whose task (reached by ``path``) the user may see listed: drafts only
    by their organisers."""
    if getattr(user, "is_superuser", False):
        return Q()
    q = ~Q(**{f"{path}__state": SharedTask.State.DRAFT})
    if getattr(user, "is_authenticated", False):
        q |= Q(**{f"{path}__organisers": user})
    return q


def my_teams(*, user: object) -> MyTeams:
    now = timezone.now()
    return MyTeams(
        teams=tuple(
            Team.objects.filter(members=user)
            .prefetch_related("members")
            .order_by("name")
        ),
        received=tuple(
            Invitation.objects.filter(
                invitee=user, status=Invitation.Status.PENDING, expires_at__gt=now
            ).select_related("team", "inviter")
        ),
    )


def team_page(*, team: Team, user: object) -> TeamPage:
    """What anyone sees of a team (members, tasks, links to runs on visible tasks;
    no scores) and, for members, the pending invitations."""
    member = is_member(team=team, user=user)
    registrations = (
        Registration.objects.filter(_visible_tasks(user, "task"), team=team)
        .select_related("task")
        .order_by("task__title")
        .distinct()
    )
    if not member:
        # Pending or rejected registrations are the team's own business.
        registrations = registrations.filter(status=Registration.Status.APPROVED)
    runs = (
        Submission.objects.filter(_visible_tasks(user, "phase__task"), team=team)
        .select_related("phase__task")
        .distinct()
    )
    if not member:
        # Rejected uploads are the team's own business.
        runs = runs.exclude(status=Submission.Status.REJECTED)
    invitations: tuple[Invitation, ...] = ()
    if member:
        invitations = tuple(
            Invitation.objects.filter(
                team=team, status=Invitation.Status.PENDING
            ).select_related("invitee", "inviter")
        )
    return TeamPage(
        team=team,
        is_member=member,
        members=tuple(team.members.order_by("username")),
        registrations=tuple(registrations),
        # Hidden runs exist only for their team and the task's organisers.
        runs=tuple(
            r
            for r in runs.order_by("-created_at", "-pk")[:200]
            if member or access.can_see_run(user, r)
        ),
        invitations=invitations,
    )


def email_notice(email: str) -> str:
    """What the inviter is told after inviting by email, whatever happened: an
    invitation must not reveal whether an email belongs to an account (or whose)."""
    return (
        f"If {email} belongs to an account, its owner is invited and will see the "
        "invitation on the site."
    )


def invite(*, team: Team, inviter: object, who: str) -> Invitation | None:
    """Invite an existing user by username, or by the email of an existing account;
    they are told on the site. By username, problems are reported (InvitationError);
    by email nothing is reported and None is returned when no invitation was sent
    (no account, several, already a member or already invited), see email_notice."""
    if not is_member(team=team, user=inviter):
        raise NotFound("Only members can invite to a team.")
    _refuse_over_cap(team)
    who = who.strip()
    if not who:
        raise InvitationError("Give a username or the email of an existing account.")
    User = get_user_model()
    invitee = User.objects.filter(username=who, is_active=True).first()
    by_email = invitee is None and "@" in who
    if by_email:
        matches = list(User.objects.filter(email__iexact=who, is_active=True)[:2])
        if len(matches) != 1:
            return None
        invitee = matches[0]
    if invitee is None:
        raise InvitationError(
            f"No account is called {who!r}. Ask them to sign up first, or send them "
            "an invitation link."
        )
    if team.members.filter(pk=invitee.pk).exists():
        if by_email:
            return None
        raise InvitationError(f"{invitee.username} is already in {team.name}.")
    now = timezone.now()
    with transaction.atomic():
        # An expired pending invitation is closed so a new one can be sent.
        Invitation.objects.filter(
            team=team,
            invitee=invitee,
            status=Invitation.Status.PENDING,
            expires_at__lte=now,
        ).update(status=Invitation.Status.REVOKED, decided_at=now)
        try:
            with transaction.atomic():
                invitation = Invitation.objects.create(
                    team=team, inviter=inviter, invitee=invitee, invited_as=who[:254]
                )
        except IntegrityError:
            if by_email:
                return None
            raise InvitationError(
                f"{invitee.username} already has a pending invitation to {team.name}."
            ) from None
        pk = invitation.pk
        transaction.on_commit(
            lambda: signals.invitation_created.send(sender=Invitation, invitation_id=pk)
        )
    return invitation


def invite_link(*, team: Team, inviter: object) -> Invitation:
    """A one-time invitation link: the first user who accepts it joins."""
    if not is_member(team=team, user=inviter):
        raise NotFound("Only members can invite to a team.")
    _refuse_over_cap(team)
    return Invitation.objects.create(team=team, inviter=inviter, invitee=None)


def visible_invitation(*, invitation: Invitation, user: object) -> Invitation:
    """The invitee and the team's members see an invitation by its number; anyone
    else gets NotFound (link invitations are opened by their token)."""
    if invitation.invitee_id is not None and invitation.invitee_id == getattr(
        user, "pk", None
    ):
        return invitation
    if is_member(team=invitation.team, user=user):
        return invitation
    raise NotFound("No such invitation.")


def by_token(*, token: str) -> Invitation:
    invitation = (
        Invitation.objects.filter(token=token, invitee__isnull=True)
        .select_related("team")
        .first()
    )
    if invitation is None:
        raise NotFound("No such invitation.")
    return invitation


def _may_answer(invitation: Invitation, user: object) -> None:
    if invitation.is_link:
        return
    if invitation.invitee_id != getattr(user, "pk", None):
        raise NotFound("No such invitation.")


def accept(*, invitation: Invitation, user: object) -> Team:
    """Join the team. Named invitations: the invitee only; links: anyone signed in
    (once). Raises InvitationError if it expired, was revoked or already used."""
    _may_answer(invitation, user)
    team = invitation.team
    if team.members.filter(pk=user.pk).exists():  # type: ignore[attr-defined]
        raise InvitationError(f"You are already in {team.name}.")
    clash = (
        Registration.objects.filter(team__members=user, task__registrations__team=team)
        .exclude(team=team)
        .select_related("team", "task")
        .first()
    )
    if clash is not None:
        # Otherwise a run of this user could belong to either team.
        raise InvitationError(
            f"You are in team {clash.team.name}, registered for {clash.task.title} "
            f"like {team.name}: leave {clash.team.name} first."
        )
    with transaction.atomic():
        # Serialise joins: two invitations cannot both take the team's last place.
        Team.objects.select_for_update().filter(pk=team.pk).first()
        _refuse_over_cap(team)
        try:
            roles.refuse_overlap(team=team, user=user, acting=user)
        except roles.OrganiserCompetes as exc:
            raise InvitationError(str(exc)) from None
        if not Invitation.decide(
            invitation.pk, status=Invitation.Status.ACCEPTED, accepted_by=user
        ):
            raise InvitationError(_closed_message(invitation))
        team.members.add(user)  # type: ignore[arg-type]
        pk = invitation.pk
        transaction.on_commit(
            lambda: signals.invitation_accepted.send(
                sender=Invitation, invitation_id=pk
            )
        )
    return team


def _refuse_over_cap(team: Team) -> None:
    """The core's size cap of the tasks the team is registered for."""
    try:
        registrations.refuse_over_cap(team=team, adding=1)
    except registrations.TeamTooLarge as exc:
        raise InvitationError(str(exc)) from None


def decline(*, invitation: Invitation, user: object) -> None:
    _may_answer(invitation, user)
    if invitation.is_link:
        raise InvitationError("An invitation link is simply not used; nothing to do.")
    if not Invitation.decide(invitation.pk, status=Invitation.Status.DECLINED):
        raise InvitationError(_closed_message(invitation))


def revoke(*, invitation: Invitation, user: object) -> None:
    if not is_member(team=invitation.team, user=user):
        raise NotFound("No such invitation.")
    if not Invitation.decide(invitation.pk, status=Invitation.Status.REVOKED):
        raise InvitationError(_closed_message(invitation))


def _closed_message(invitation: Invitation) -> str:
    invitation.refresh_from_db()
    if invitation.status == Invitation.Status.PENDING:
        return "This invitation has expired; ask the team for a new one."
    return f"This invitation was already {invitation.get_status_display().lower()}."


def leave(*, team: Team, user: object) -> bool:
    """Leave a team. The last member may leave only a team without runs, which is
    then deleted (with its registrations). Returns True if the team was deleted."""
    with transaction.atomic():
        # Serialise leaving and submitting: the last two members cannot both leave.
        Team.objects.select_for_update().filter(pk=team.pk).first()
        if not team.members.filter(pk=user.pk).exists():  # type: ignore[attr-defined]
            raise NotFound("You are not in this team.")
        if team.members.exclude(pk=user.pk).exists():  # type: ignore[attr-defined]
            team.members.remove(user)  # type: ignore[arg-type]
            return False
        if team.submissions.exists():
            raise InvitationError(
                f"You are the last member of {team.name} and it has runs, so it cannot "
                "be left empty: invite someone to take it over first, or ask the "
                "organisers to remove it."
            )
        team.delete()
        return True
