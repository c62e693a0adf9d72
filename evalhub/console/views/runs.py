"""The console's *Runs* page: every run of the task with its scores, filters,
search and pages (GET), and bulk actions on a selection (POST): a confirmation page
first for rescoring, hiding and showing, then the change and a message saying what
happened; the download answers the zip at once."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from evalhub.competitions.models import SharedTask
from evalhub.console.forms_runs import RunActionForm, RunFilterForm
from evalhub.console.services import runs
from evalhub.console.views.access import organised_task


def _list_url(task: SharedTask, filters: str) -> str:
    url = reverse("console:runs", args=[task.slug])
    return f"{url}?{filters}" if filters else url


@login_required
def run_list(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    if request.method == "POST":
        return _bulk(request, task)
    form = RunFilterForm(request.GET or None, task=task)
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "task": task,
        "form": form,
        "listing": runs.page(
            task=task,
            viewer=request.user,
            filters=form.filters(),
            number=request.GET.get("page"),
        ),
        "filters": query.urlencode(),
        "actions": runs.ACTIONS,
        "phases": task.phases.all(),
    }
    status = 400 if form.errors else 200
    return render(request, "console/runs.html", context, status=status)


@login_required
def run_list_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """Every run matching the page's filters with every metric's score, as CSV."""
    task = organised_task(request, slug)
    form = RunFilterForm(request.GET or None, task=task)
    if form.errors:
        return HttpResponse(
            "The filters are not valid.", status=400, content_type="text/plain"
        )
    matched = runs.matching(task=task, filters=form.filters()).select_related(
        "team", "phase", "track"
    )
    response = HttpResponse(
        runs.run_scores.csv_text(task=task, viewer=request.user, runs=list(matched)),
        content_type="text/csv; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{task.slug}-runs.csv"'
    return response


def _bulk(request: HttpRequest, task: SharedTask) -> HttpResponse:
    form = RunActionForm(request.POST, task=task)
    back = _list_url(task, request.POST.get("filters", ""))
    if not form.is_valid():
        for error in form.errors.get("__all__", []) + form.errors.get("run", []):
            messages.error(request, error)
        if not form.non_field_errors() and "run" not in form.errors:
            messages.error(request, "Choose an action.")
        return redirect(back)
    action, selected = form.cleaned_data["action"], form.selection()
    try:
        if action == runs.DOWNLOAD:
            archive, filename = runs.download(
                task=task, user=request.user, runs=selected
            )
            return FileResponse(
                archive,
                as_attachment=True,
                filename=filename,
                content_type="application/zip",
            )
        if not form.cleaned_data["confirm"]:
            context = {
                "task": task,
                "plan": runs.plan(action=action, runs=selected),
                "form": form,
                "back": back,
            }
            return render(request, "console/runs_confirm.html", context)
        messages.success(
            request,
            runs.perform(task=task, user=request.user, action=action, runs=selected),
        )
    except runs.Refused as exc:
        messages.error(request, str(exc))
    return redirect(back)
