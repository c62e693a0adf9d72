"""Finding the task or run a URL names, as the viewer may see it (404 otherwise;
feature apps' views use them too)."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.functional import SimpleLazyObject, empty

from evalhub.competitions.models import Phase, SharedTask, Submission, Track
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import loading


def task_or_404(request: HttpRequest, slug: str) -> SharedTask:
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.can_see_task(request.user, task):
        raise Http404("No such task.")
    return task


def organised_task_or_404(request: HttpRequest, slug: str) -> SharedTask:
    """The task, for its organisers; 404 for everyone else (so organiser pages'
    existence is not revealed)."""
    task = get_object_or_404(SharedTask, slug=slug)
    if not roles.is_organiser(request.user, task):
        raise Http404("No such page.")
    return task


def run_or_404(request: HttpRequest, pk: int) -> Submission:
    _unwrap_user(request)
    sub = loading.run(pk)
    if sub is None or not access.can_see_run(request.user, sub):
        raise Http404("No such run.")
    return sub


def _unwrap_user(request: HttpRequest) -> None:
    """Put the viewer itself in ``request.user``, in place of the lazy object
    around it: a run page asks the viewer's attributes some ninety times (its
    checks, its header, its template), each through the proxy (issue 47)."""
    user = request.user
    if isinstance(user, SimpleLazyObject):
        if user._wrapped is empty:  # noqa: SLF001
            user._setup()  # noqa: SLF001
        request.user = user._wrapped  # noqa: SLF001


def track_or_404(request: HttpRequest, phase: Phase) -> Track | None:
    """``?track=SLUG``: that track of the phase (none: every track); an unknown
    track is "not found" on every board, ranking and figure (the phase's tracks
    are cached: no query)."""
    slug = request.GET.get("track")
    track = tracks.by_slug(phase=phase, slug=slug)
    if slug and track is None:
        raise Http404("No such track.")
    return track
