"""Finding the task or run a URL names, as the viewer may see it (404 otherwise;
feature apps' views use them too)."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404

from evalhub.competitions.models import SharedTask, Submission
from evalhub.competitions.services.boards import access


def task_or_404(request: HttpRequest, slug: str) -> SharedTask:
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.can_see_task(request.user, task):
        raise Http404("No such task.")
    return task


def organised_task_or_404(request: HttpRequest, slug: str) -> SharedTask:
    """The task, for its organisers; 404 for everyone else (so organiser pages'
    existence is not revealed)."""
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.is_organiser(request.user, task):
        raise Http404("No such page.")
    return task


def run_or_404(request: HttpRequest, pk: int) -> Submission:
    sub = get_object_or_404(
        Submission.objects.select_related("phase__task", "team"), pk=pk
    )
    if not access.can_see_run(request.user, sub):
        raise Http404("No such run.")
    return sub
