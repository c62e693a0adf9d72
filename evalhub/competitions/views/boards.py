"""Leaderboards, the overall ranking and run comparisons of a phase."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from evalhub.competitions.models import Phase
from evalhub.competitions.services.boards import (
    access,
    board_pages,
    compare,
    kept_exports,
    overall,
    overall_figure,
    overall_page,
    tails,
    viewer_page,
)
from evalhub.competitions.views.files import NARROW
from evalhub.competitions.views.lookups import task_or_404
from evalhub.competitions.views.lookups import track_or_404 as _track


def phase_leaderboard(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    # Pages with a message for the viewer are theirs alone: rendered whole, never
    # kept. The others are kept: one page for every anonymous visitor, one shell
    # per audience for signed-in viewers (``viewer_page``).
    kept = not len(messages.get_messages(request))
    signed_in = request.user.is_authenticated
    if kept and not request.GET:  # the page most visitors get, if kept
        page = (
            viewer_page.cached_signed_in_leaderboard(
                request=request, slug=slug, phase_slug=phase
            )
            if signed_in
            else board_pages.cached_anonymous_leaderboard(
                slug=slug, phase_slug=phase, path=request.get_full_path()
            )
        )
        if page is not None:
            return HttpResponse(page)
    try:
        phase_obj, test_sets = board_pages.leaderboard_phase(
            slug=slug, phase_slug=phase
        )
    except Phase.DoesNotExist:
        raise Http404("No such phase.") from None
    if not access.can_see_task(request.user, phase_obj.task):
        raise Http404("No such task.")
    track = _track(request, phase_obj)
    every_row = tails.shows_all(request.GET.get("rows"))
    if kept and signed_in:
        return HttpResponse(
            viewer_page.signed_in_leaderboard(
                request=request,
                phase=phase_obj,
                test_sets=test_sets,
                track=track,
                every_row=every_row,
            )
        )

    def render_page() -> bytes:
        return render(
            request,
            "competitions/phase_leaderboard.html",
            board_pages.leaderboard_page(
                phase=phase_obj,
                test_sets=test_sets,
                user=request.user,
                track=track,
                every_row=every_row,
            ),
        ).content

    # Anonymous visitors share one cached page per board version (nothing on it is
    # theirs: no CSRF token, and pages with a message for them are not cached).
    if kept and not signed_in:
        return HttpResponse(
            board_pages.anonymous_leaderboard(
                phase=phase_obj,
                test_sets=test_sets,
                path=request.get_full_path(),
                render=render_page,
            )
        )
    return HttpResponse(render_page())


#: The overall chart's downloads: extension, link text.
FIGURE_FORMATS = (("svg", "SVG"), ("png", "PNG"), ("pdf", "PDF"), ("csv", "data (CSV)"))


def phase_ranking(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    task = task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    track = _track(request, phase_obj)
    context = {
        "task": task,
        "phase": phase_obj,
        "track": track,
        "figure_formats": FIGURE_FORMATS,
        **overall_page.context(phase=phase_obj, user=request.user, track=track),
    }
    return render(request, "competitions/phase_ranking.html", context)


def phase_ranking_plot(
    request: HttpRequest, slug: str, phase: str, ext: str
) -> HttpResponse:
    task = task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    if ext not in ("svg", "narrow.svg", "png", "pdf", "csv"):
        raise Http404("No such plot.")
    track = _track(request, phase_obj)
    if ext == "csv":
        body = overall.overall_csv(phase=phase_obj, user=request.user, track=track)
        response = HttpResponse(body, content_type="text/csv; charset=utf-8")
        name = f"{task.slug}-{phase_obj.slug}-overall.csv"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        response["Cache-Control"] = "private, max-age=60"
        return response
    data = overall_figure.overall_plot(
        phase=phase_obj, user=request.user, ext=ext, track=track
    )
    content_type = {
        "svg": "image/svg+xml",
        "narrow.svg": "image/svg+xml",
        "png": "image/png",
    }.get(ext, "application/pdf")
    response = HttpResponse(data, content_type=content_type)
    response["Cache-Control"] = "private, max-age=60"
    return response


def leaderboard_json(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    task = task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    track = _track(request, phase_obj)
    # The export's JSON, the same text (one writer, kept once per audience).
    text = kept_exports.leaderboard_text(
        kind="json", phase=phase_obj, user=request.user, track=track
    )
    return HttpResponse(text, content_type="application/json")


def runs_compare(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """2 to 5 runs of a phase side by side (``?runs=1&runs=2``)."""
    task = task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    try:
        context = compare.compare_page(
            phase=phase_obj, run_ids=request.GET.getlist("runs"), user=request.user
        )
    except compare.NotFound:
        raise Http404("No such run.") from None
    status = 400 if context.get("error") else 200
    return render(request, "competitions/runs_compare.html", context, status=status)


def runs_compare_figure(
    request: HttpRequest, slug: str, phase: str, test_set: int, key: str, ext: str
) -> HttpResponse:
    """One overlaid figure of the compare page (``?runs=...`` as the page's), as SVG,
    its phone version (``narrow.svg``) or its points as CSV."""
    task = task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    if ext not in ("svg", NARROW, "csv"):
        raise Http404("No such figure.")
    try:
        body, content_type = compare.figure(
            phase=phase_obj,
            run_ids=request.GET.getlist("runs"),
            user=request.user,
            test_set_id=test_set,
            key=key,
            form=ext,
        )
    except compare.NotFound:
        raise Http404("No such figure.") from None
    response = HttpResponse(body, content_type=content_type)
    response["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'"
    )
    response["Cache-Control"] = "private, max-age=60"
    return response
