"""Task pages: the list, a task's page, registering a team and the viewer's runs."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from evalhub.competitions.forms import RegisterForm
from evalhub.competitions.models import Registration, SharedTask, Team
from evalhub.competitions.services import gates, roles, teams
from evalhub.competitions.services.boards import own_rows, pages
from evalhub.competitions.views.lookups import task_or_404


def task_list(request: HttpRequest) -> HttpResponse:
    tasks = SharedTask.objects.filter(
        Q(state=SharedTask.State.PUBLISHED)
        | Q(
            pk__in=request.user.organised_tasks.all()
            if request.user.is_authenticated
            else []
        )
    ).distinct()
    return render(request, "competitions/task_list.html", {"tasks": tasks})


def task_detail(request: HttpRequest, slug: str) -> HttpResponse:
    task = task_or_404(request, slug)
    return render(
        request,
        "competitions/task_detail.html",
        pages.task_page(task=task, user=request.user),
    )


@login_required
def task_register(request: HttpRequest, slug: str) -> HttpResponse:
    task = task_or_404(request, slug)
    form = RegisterForm(
        request.POST or None, teams=Team.objects.filter(members=request.user)
    )
    if request.method == "POST" and form.is_valid():
        try:
            reg = teams.register(
                task=task,
                user=request.user,
                team=form.cleaned_data["existing_team"],
                new_team_name=form.cleaned_data["new_team"],
            )
        except teams.TeamNameTaken as exc:
            form.add_error("new_team", str(exc))
        except (roles.OrganiserCompetes, teams.TeamTooLarge) as exc:
            form.add_error(None, str(exc))
        except gates.Refused as exc:
            messages.info(request, exc.refusal.message)
            return redirect(f"{exc.refusal.path}?next={request.path}")
        else:
            if reg.status == Registration.Status.APPROVED:
                messages.success(
                    request,
                    f"Team {reg.team.name} is registered for {task.title}. Next: "
                    "download the data below, then submit a run (Submit a run, "
                    "under the phase); My runs lists your runs and their scores.",
                )
            else:
                messages.info(
                    request,
                    f"Team {reg.team.name} awaits the organisers' approval. Next: "
                    "download the data below; once the team is approved (you will "
                    "be notified), submit a run from this page.",
                )
            return redirect(task)
    return render(
        request, "competitions/task_register.html", {"task": task, "form": form}
    )


@login_required
def own_run_list(request: HttpRequest, slug: str) -> HttpResponse:
    """The viewer's teams' runs of a task ("My runs")."""
    task = task_or_404(request, slug)
    return render(
        request,
        "competitions/own_run_list.html",
        own_rows.own_runs_page(task=task, user=request.user),
    )
