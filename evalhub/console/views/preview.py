"""The task page and leaderboards as a participant or the public will see them
(organisers only, bannered; computed for a stand-in viewer, never for the
organiser, so nothing organiser-only shows)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from evalhub.competitions.models import Phase
from evalhub.console.services import preview
from evalhub.console.views.access import organised_task


def _task_preview(request: HttpRequest, slug: str, viewer: str) -> HttpResponse:
    task = organised_task(request, slug)
    context = preview.task_page(task=task, viewer=viewer)
    return render(request, "console/preview_task.html", context)


@login_required
def preview_participant(request: HttpRequest, slug: str) -> HttpResponse:
    return _task_preview(request, slug, "participant")


@login_required
def preview_public(request: HttpRequest, slug: str) -> HttpResponse:
    return _task_preview(request, slug, "public")


@login_required
def preview_leaderboard(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    task = organised_task(request, slug)
    try:
        context = preview.leaderboard_page(task=task, phase_slug=phase)
    except Phase.DoesNotExist:
        raise Http404("No such phase.") from None
    return render(request, "console/preview_leaderboard.html", context)
