"""The task's archive from the console: ask a worker to write it, watch it being
written (htmx polls the panel), download it. Organisers of the task only (404
for everyone else); the web request never writes the archive itself."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from evalhub.competitions.models import SharedTask
from evalhub.console.services import archive_exports
from evalhub.console.views.access import organised_task


def panel_context(task: SharedTask) -> dict[str, object]:
    export = archive_exports.current(task)
    return {
        "task": task,
        "export": export,
        "expires_at": archive_exports.expires_at(export) if export else None,
        "keep_hours": settings.ARCHIVE_EXPORT_KEEP_HOURS,
    }


@login_required
@require_POST
def archive_export(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    asked = archive_exports.request_export(task=task, user=request.user)
    if request.htmx:
        return render(request, "console/archive_panel.html", panel_context(task))
    if asked:
        messages.success(request, "A worker will write the archive; this page shows when it is ready.")  # fmt: skip
    else:
        messages.info(request, "The archive is being written already.")
    return redirect(reverse("console:task-settings", args=[task.slug]) + "#archive")


@login_required
@require_GET
def archive_status(request: HttpRequest, slug: str) -> HttpResponse:
    """The archive panel alone (htmx polls it while the archive is written)."""
    task = organised_task(request, slug)
    return render(request, "console/archive_panel.html", panel_context(task))


@login_required
@require_GET
def task_archive(request: HttpRequest, slug: str) -> FileResponse:
    """The archive the worker wrote (gold and every run included), streamed from
    the storage; "not found" when none is ready."""
    task = organised_task(request, slug)
    ready = archive_exports.open_ready(task)
    if ready is None:
        raise Http404("No archive is ready.")
    handle, size = ready
    response = FileResponse(
        handle,
        as_attachment=True,
        filename=f"{task.slug}-archive.zip",
        content_type="application/zip",
    )
    response["Content-Length"] = size
    return response
