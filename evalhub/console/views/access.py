"""Who may use the console: a task's organisers (404 for everyone else, so the
pages' existence is not revealed)."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404

from evalhub.competitions.models import Phase, SharedTask
from evalhub.competitions.services import access


def organised_task(request: HttpRequest, slug: str) -> SharedTask:
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.is_organiser(request.user, task):
        raise Http404("No such page.")
    return task


def organised_phase(request: HttpRequest, slug: str, phase: str) -> Phase:
    task = organised_task(request, slug)
    return get_object_or_404(Phase, task=task, slug=phase)
