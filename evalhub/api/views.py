"""The API-token page and the export downloads. Each view: authentication, form, one
service call, render."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from evalhub.api.forms import TokenForm
from evalhub.api.models import ApiToken
from evalhub.api.services import tokens
from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services.boards import (
    access,
    exports,
    figure_pdfs,
    kept_exports,
)
from evalhub.competitions.services.data import tracks as track_service
from evalhub.competitions.views.lookups import track_or_404


@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None, user=request.user)
    new = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        new = tokens.create(
            user=request.user,
            name=data["name"],
            scope=data["scope"],
            tasks=data["tasks"],
            expires_at=data["expires_at"],
        )
        form = TokenForm(user=request.user)
    response = render(
        request,
        "api/token_list.html",
        {
            "form": form,
            "new_token": new,
            "tokens": ApiToken.objects.filter(user=request.user).prefetch_related(
                "tasks"
            ),
        },
        status=201 if new else 200,
    )
    # The token is shown exactly once: never from a cache.
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    if not tokens.revoke(user=request.user, token_id=pk):
        raise Http404("No such token.")
    return redirect("api:token-list")


def _phase(request: HttpRequest, slug: str, phase: str) -> Phase:
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.can_see_task(request.user, task):
        raise Http404("No such task.")
    return get_object_or_404(Phase, task=task, slug=phase)


def _download(body: str | bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-cache"
    return response


def leaderboard_export(
    request: HttpRequest, slug: str, phase: str, fmt: str
) -> HttpResponse:
    phase_obj = _phase(request, slug, phase)
    content_type = {
        "csv": "text/csv; charset=utf-8",
        "json": "application/json",
        "tex": "application/x-tex; charset=utf-8",
    }.get(fmt)
    if content_type is None:
        raise Http404("No such format.")
    track = None
    if request.GET.get("track"):
        track = track_service.by_slug(phase=phase_obj, slug=request.GET["track"])
        if track is None:
            raise Http404("No such track.")
    options = {}
    if fmt == "tex":  # the board's default columns; ?columns=all: every metric
        options["all_columns"] = request.GET.get("columns") == "all"
    try:
        body = kept_exports.leaderboard_text(
            kind=fmt, phase=phase_obj, user=request.user, track=track, **options
        )
    except exports.NotVisible:
        raise Http404("No such export.") from None
    name = f"{slug}-{phase}" + (f"-{track.slug}" if track else "")
    return _download(body, content_type, f"{name}-leaderboard.{fmt}")


def figure_export(request: HttpRequest, pk: int, key: str, fmt: str) -> HttpResponse:
    test_set = get_object_or_404(TestSet.objects.select_related("phase__task"), pk=pk)
    function = {"svg": exports.figure_svg, "pdf": figure_pdfs.figure_pdf}.get(fmt)
    if function is None:
        raise Http404("No such format.")
    track = track_or_404(request, test_set.phase)
    try:
        body = function(test_set=test_set, key=key, user=request.user, track=track)
    except exports.NotVisible:
        raise Http404("No such figure.") from None
    content_type = "image/svg+xml" if fmt == "svg" else "application/pdf"
    name = f"{test_set.slug}-" + (f"{track.slug}-" if track else "") + key
    response = _download(body, content_type, f"{name}.{fmt}")
    response["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'"
    )
    return response


def runs_export(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    phase_obj = _phase(request, slug, phase)
    try:
        archive = exports.runs_zip(phase=phase_obj, user=request.user)
    except exports.NotVisible:
        raise Http404("No such export.") from None
    return FileResponse(
        archive,
        as_attachment=True,
        filename=f"{slug}-{phase}-runs.zip",
        content_type="application/zip",
    )
