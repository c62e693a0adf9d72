"""Creating a task from scratch, its settings page and the Markdown preview."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from evalhub.competitions import markdown
from evalhub.competitions.services import roles
from evalhub.competitions.views.organisers import creation_refused
from evalhub.console.forms import TaskForm
from evalhub.console.services import tasks
from evalhub.console.views import archive
from evalhub.console.views.access import organised_task


@login_required
def task_create(request: HttpRequest) -> HttpResponse:
    if not roles.may_create_tasks(request.user):
        return creation_refused(request)
    form = TaskForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        task = tasks.create_task(user=request.user, data=form.cleaned_data)
        messages.success(request, f"Created {task.title}; you organise it.")
        return redirect("competitions:task-dashboard", slug=task.slug)
    status = 422 if form.errors else 200
    return render(request, "console/task_form.html", {"form": form}, status=status)


@login_required
def task_settings(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    form = TaskForm(request.POST or None, task=task)
    if request.method == "POST" and form.is_valid():
        tasks.update_task(task=task, data=form.cleaned_data)
        messages.success(request, "The task's settings are saved.")
        return redirect("console:task-settings", slug=task.slug)
    status = 422 if form.errors else 200
    context = {"form": form, **archive.panel_context(task)}
    return render(request, "console/task_form.html", context, status=status)


@login_required
@require_POST
def markdown_preview(request: HttpRequest) -> HttpResponse:
    """The description as the task page will show it (same renderer and sanitiser),
    or the form's message when it would be refused, for htmx."""
    if not tasks.may_preview_markdown(request.user):
        raise Http404("No such page.")
    html, problem = markdown.preview(request.POST.get("description", ""))
    context = {"html": html, "problem": problem}
    return render(request, "console/task_markdown_preview.html", context)
