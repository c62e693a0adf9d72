"""Who may use the console: a task's organisers (404 for everyone else, so the
pages' existence is not revealed)."""

from __future__ import annotations

from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from evalhub.competitions.models import Phase
from evalhub.competitions.views.lookups import organised_task_or_404 as organised_task

__all__ = ["organised_phase", "organised_task"]


def organised_phase(request: HttpRequest, slug: str, phase: str) -> Phase:
    task = organised_task(request, slug)
    return get_object_or_404(Phase, task=task, slug=phase)
