"""Organisers' pages: bundles, the dashboard, rescoring, registrations."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from evalhub.competitions.forms import BundleForm
from evalhub.competitions.models import Registration
from evalhub.competitions.services import dashboard, roles, teams
from evalhub.competitions.services.data import bundles
from evalhub.competitions.services.runs import rescoring
from evalhub.competitions.views.lookups import organised_task_or_404, task_or_404


def creation_refused(request: HttpRequest) -> HttpResponse:
    """The answer to a signed-in user who may not create tasks, at ``/new/task/`` and
    ``/new/bundle/``: why, and how to get the right (403, not a bare "Not Found")."""
    context = {
        "rule": roles.creators_rule(),
        "ways": roles.ways_to_creation_right(request.user),
    }
    return render(request, "competitions/creation_refused.html", context, status=403)


@login_required
def bundle_import(request: HttpRequest) -> HttpResponse:
    """Create a task from a bundle (its importer becomes its organiser and owner)."""
    if not roles.may_create_tasks(request.user):
        return creation_refused(request)
    form = BundleForm(request.POST or None, request.FILES or None)
    problems: list = []
    if request.method == "POST" and form.is_valid():
        try:
            task = bundles.import_bundle(
                data=form.cleaned_data["bundle"].read(), user=request.user
            )
        except bundles.BundleError as exc:
            problems = exc.problems
        else:
            messages.success(request, f"Created {task.title} from the bundle.")
            return redirect(task)
    status = 422 if problems else 200
    context = {"form": form, "problems": problems}
    return render(request, "competitions/bundle_import.html", context, status=status)


@login_required
def bundle_export(request: HttpRequest, slug: str) -> HttpResponse:
    task = task_or_404(request, slug)
    if not roles.is_organiser(request.user, task):
        raise Http404("No such page.")
    response = HttpResponse(
        bundles.export_bundle(task=task), content_type="application/zip"
    )
    response["Content-Disposition"] = f'attachment; filename="{task.slug}-bundle.zip"'
    return response


@login_required
def task_dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task_or_404(request, slug)
    context = {"dash": dashboard.dashboard(task=task)}
    return render(request, "competitions/task_dashboard.html", context)


@login_required
def task_rescoring(request: HttpRequest, slug: str) -> HttpResponse:
    """Organisers: runs scored with older gold or another scorer version, a button
    to rescore them, and old and new scores side by side."""
    task = task_or_404(request, slug)
    if not roles.is_organiser(request.user, task):
        raise Http404("No such page.")
    if request.method == "POST":
        n = rescoring.rescore_stale(task=task)
        messages.success(
            request, f"{n} run{'s' if n != 1 else ''} queued for rescoring."
        )
        return redirect("competitions:task-rescoring", task.slug)
    context = {"task": task, "test_sets": rescoring.comparison(task=task)}
    return render(request, "competitions/task_rescoring.html", context)


@login_required
@require_POST
def registration_decide(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Approve or reject a pending registration from the dashboard (one click)."""
    task = task_or_404(request, slug)
    reg = get_object_or_404(
        Registration.objects.select_related("team"), pk=pk, task=task
    )
    approve = request.POST.get("decision") == "approve"
    try:
        teams.decide_registration(registration=reg, user=request.user, approve=approve)
    except teams.NotAllowed:
        raise Http404("No such page.") from None
    except roles.OrganiserCompetes as exc:
        messages.error(request, str(exc))
        return redirect("competitions:task-dashboard", slug=task.slug)
    verb = "approved" if approve else "rejected"
    messages.success(request, f"The registration of team {reg.team.name} is {verb}.")
    return redirect("competitions:task-dashboard", slug=task.slug)
