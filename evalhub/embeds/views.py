"""The embeds and badges of the public boards, and the console's page of the
origins allowed to frame them. Each view: lookup, one service call, answer."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from evalhub.competitions.views.lookups import organised_task_or_404, track_or_404
from evalhub.embeds.forms import OriginsForm
from evalhub.embeds.services import origins, pages, snippets


def _answer(
    request: HttpRequest, slug: str, phase: str, test_set: int | None, kind: str
) -> HttpResponse:
    try:
        found = pages.answer(
            slug=slug,
            phase_slug=phase,
            test_set_id=test_set,
            track=lambda p: track_or_404(request, p),
            kind=kind,
        )
    except pages.NotFound:
        raise Http404("No such board.") from None
    if request.headers.get("If-None-Match") == found.etag:
        response = HttpResponse(status=304)
    elif kind == pages.BADGE:
        response = HttpResponse(found.body, content_type="image/svg+xml")
    else:
        response = HttpResponse(found.body)
    response["ETag"] = found.etag
    # Asked again every time (a 304 while the board is the same): a hidden run
    # or a Ladder decision leaves no copy behind in a browser or proxy.
    response["Cache-Control"] = "no-cache"
    if kind == pages.BADGE:
        response["Content-Security-Policy"] = (
            "default-src 'none'; style-src 'unsafe-inline'"
        )
        return response
    response["Content-Security-Policy"] = found.policy
    # Only an embed some origin may frame goes without X-Frame-Options: DENY
    # (which knows no list of origins; CSP's frame-ancestors does).
    response.xframe_options_exempt = found.framed
    return response


@require_safe
def board_embed(
    request: HttpRequest, slug: str, phase: str, test_set: int
) -> HttpResponse:
    return _answer(request, slug, phase, test_set, pages.EMBED)


@require_safe
def overall_embed(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    return _answer(request, slug, phase, None, pages.EMBED)


@require_safe
def board_badge(
    request: HttpRequest, slug: str, phase: str, test_set: int
) -> HttpResponse:
    return _answer(request, slug, phase, test_set, pages.BADGE)


@require_safe
def overall_badge(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    return _answer(request, slug, phase, None, pages.BADGE)


@login_required
def embed_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """The console's page of the origins allowed to frame the task's embeds,
    with every board's snippet (organisers only, 404 otherwise)."""
    task = organised_task_or_404(request, slug)
    initial = "\n".join(origins.allowed(task=task))
    form = OriginsForm(request.POST or None, initial={"origins": initial})
    if request.method == "POST" and form.is_valid():
        saved = origins.save(task=task, text=form.cleaned_data["origins"])
        messages.success(
            request,
            f"Embeds of {task.title} may now be framed by "
            + (", ".join(saved) if saved else "no page")
            + ".",
        )
        return redirect("console:embeds", slug=task.slug)
    context = {
        "task": task,
        "form": form,
        "boards": snippets.for_task(task=task),
    }
    status = 422 if form.errors else 200
    return render(request, "embeds/settings.html", context, status=status)
