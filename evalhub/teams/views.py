"""Team pages. Each view: authentication, form, one service call, render."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from evalhub.competitions import public_url
from evalhub.competitions.models import Team
from evalhub.competitions.services import teams as registrations
from evalhub.teams.forms import InviteForm, TeamForm
from evalhub.teams.models import Invitation
from evalhub.teams.services import teams


@login_required
def team_list(request: HttpRequest) -> HttpResponse:
    context = {"mine": teams.my_teams(user=request.user), "form": TeamForm()}
    return render(request, "teams/team_list.html", context)


@login_required
@require_POST
def team_create(request: HttpRequest) -> HttpResponse:
    form = TeamForm(request.POST)
    if form.is_valid():
        try:
            team = registrations.create_team(
                name=form.cleaned_data["name"], user=request.user
            )
        except registrations.TeamNameTaken as exc:
            form.add_error("name", str(exc))
        else:
            messages.success(request, f"Team {team.name} created.")
            return redirect("teams:team-detail", pk=team.pk)
    context = {"mine": teams.my_teams(user=request.user), "form": form}
    return render(request, "teams/team_list.html", context, status=422)


def team_detail(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(Team, pk=pk)
    page = teams.team_page(team=team, user=request.user)
    return render(
        request, "teams/team_detail.html", {"page": page, "invite_form": InviteForm()}
    )


@login_required
@require_POST
def invitation_create(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(Team, pk=pk)
    form = InviteForm(request.POST)
    try:
        if "link" in request.POST:
            invitation = teams.invite_link(team=team, inviter=request.user)
            url = public_url.absolute(invitation.link_url())
            messages.success(
                request, f"Invitation link (valid once, for 7 days): {url}"
            )
        elif form.is_valid():
            who = form.cleaned_data["who"].strip()
            invitation = teams.invite(team=team, inviter=request.user, who=who)
            if (
                invitation is None
                or invitation.invited_as != invitation.invitee.username
            ):
                messages.success(request, teams.email_notice(who))
            else:
                messages.success(request, f"{who} is invited to {team.name}.")
        else:
            messages.error(request, "Give a username or an email.")
    except teams.NotFound:
        raise Http404("No such team.") from None
    except teams.InvitationError as exc:
        messages.error(request, str(exc))
    return redirect("teams:team-detail", pk=team.pk)


@login_required
@require_POST
def team_leave(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(Team, pk=pk)
    try:
        deleted = teams.leave(team=team, user=request.user)
    except teams.NotFound:
        raise Http404("No such team.") from None
    except teams.InvitationError as exc:
        messages.error(request, str(exc))
        return redirect("teams:team-detail", pk=team.pk)
    if deleted:
        messages.success(
            request, f"You left {team.name}; it had no runs left and is deleted."
        )
    else:
        messages.success(request, f"You left {team.name}.")
    return redirect("teams:team-list")


def _invitation(request: HttpRequest, pk: int) -> Invitation:
    invitation = get_object_or_404(
        Invitation.objects.select_related("team", "inviter", "invitee"), pk=pk
    )
    try:
        return teams.visible_invitation(invitation=invitation, user=request.user)
    except teams.NotFound:
        raise Http404("No such invitation.") from None


@login_required
def invitation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    invitation = _invitation(request, pk)
    return render(
        request,
        "teams/invitation_detail.html",
        {
            "invitation": invitation,
            "is_invitee": invitation.invitee_id == request.user.pk,
            "accept_url": reverse("teams:invitation-accept", args=[invitation.pk]),
        },
    )


@login_required
def invitation_join(request: HttpRequest, token: str) -> HttpResponse:
    """A one-time link: GET shows the invitation, POST accepts it."""
    try:
        invitation = teams.by_token(token=token)
    except teams.NotFound:
        raise Http404("No such invitation.") from None
    if request.method == "POST":
        return _accept(request, invitation)
    return render(
        request,
        "teams/invitation_detail.html",
        {"invitation": invitation, "is_invitee": True, "accept_url": request.path},
    )


def _accept(request: HttpRequest, invitation: Invitation) -> HttpResponse:
    try:
        team = teams.accept(invitation=invitation, user=request.user)
    except teams.NotFound:
        raise Http404("No such invitation.") from None
    except teams.InvitationError as exc:
        messages.error(request, str(exc))
        return redirect("teams:team-list")
    messages.success(request, f"You joined {team.name}.")
    return redirect("teams:team-detail", pk=team.pk)


@login_required
@require_POST
def invitation_accept(request: HttpRequest, pk: int) -> HttpResponse:
    return _accept(request, _invitation(request, pk))


@login_required
@require_POST
def invitation_decline(request: HttpRequest, pk: int) -> HttpResponse:
    invitation = _invitation(request, pk)
    try:
        teams.decline(invitation=invitation, user=request.user)
    except teams.NotFound:
        raise Http404("No such invitation.") from None
    except teams.InvitationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"You declined the invitation to {invitation.team}.")
    return redirect("teams:team-list")


@login_required
@require_POST
def invitation_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    invitation = _invitation(request, pk)
    try:
        teams.revoke(invitation=invitation, user=request.user)
    except teams.NotFound:
        raise Http404("No such invitation.") from None
    except teams.InvitationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "The invitation is revoked.")
    return redirect("teams:team-detail", pk=invitation.team_id)
