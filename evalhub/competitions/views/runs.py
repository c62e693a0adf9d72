"""A run's pages, files and plots, and what its team or the organisers do to it."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from evalhub.competitions.models import Artefact, Submission
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access, pages
from evalhub.competitions.services.runs import finals, hiding
from evalhub.competitions.views.files import NARROW, serve
from evalhub.competitions.views.lookups import run_or_404


def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    sub = run_or_404(request, pk)
    return render(
        request,
        "competitions/run_detail.html",
        pages.run_page(submission=sub, user=request.user),
    )


def run_status(request: HttpRequest, pk: int) -> HttpResponse:
    """The live part of the run page (polled by htmx while the run is not final)."""
    sub = run_or_404(request, pk)
    context = pages.run_page(submission=sub, user=request.user)
    response = render(request, "competitions/run_status.html", context)
    if sub.is_terminal and not context["figures_pending"] and request.htmx:
        # Stop polling and reload once so scores and plots appear (the figures are
        # drawn after the score: the page polls until they are).
        response["HX-Refresh"] = "true"
    return response


def run_file(request: HttpRequest, pk: int) -> HttpResponse:
    sub = run_or_404(request, pk)
    if not access.can_see_run_private(request.user, sub) or not sub.file:
        raise Http404("No such file.")
    return FileResponse(
        sub.file.open("rb"), as_attachment=True, filename=sub.original_name
    )


def run_item_detail(request: HttpRequest, pk: int, test_set: int) -> HttpResponse:
    sub = run_or_404(request, pk)
    if not access.can_see_detail(request.user, sub.phase.task):
        raise Http404("No such page.")
    evaluation = get_object_or_404(
        sub.evaluations.select_related("test_set"), test_set_id=test_set
    )
    # Its score follows from the per-item outcomes and the released gold.
    if not access.can_see_run_scores(request.user, sub, evaluation.test_set):
        raise Http404("No such page.")
    if request.GET.get("format") == "json":
        return HttpResponse(
            json.dumps(evaluation.detail, indent=1, ensure_ascii=False),
            content_type="application/json",
        )
    context = pages.item_detail_page(submission=sub, test_set_id=test_set)
    return render(request, "competitions/run_items.html", context)


def run_plot(request: HttpRequest, pk: int, artefact: int, ext: str) -> HttpResponse:
    sub = run_or_404(request, pk)
    art = get_object_or_404(
        Artefact.objects.select_related("evaluation__test_set__phase__task"),
        pk=artefact,
        evaluation__submission=sub,
    )
    if not access.can_see_run_scores(request.user, sub, art.evaluation.test_set):
        raise Http404("No such plot.")
    field = {"svg": art.svg, "png": art.png, NARROW: art.svg_narrow or art.svg}
    return serve(field.get(ext) or art.png, ext)


@login_required
@require_POST
def run_rescore(request: HttpRequest, pk: int) -> HttpResponse:
    sub = run_or_404(request, pk)
    if not roles.is_organiser(request.user, sub.phase.task):
        raise Http404("No such run.")
    from evalhub.competitions.services.runs import lifecycle

    lifecycle.rescore(submission_ids=[sub.pk])
    messages.success(request, f"Run {sub.pk} is queued for rescoring.")
    return redirect(sub)


def _back(request: HttpRequest, sub: Submission) -> HttpResponse:
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect(sub)


@login_required
@require_POST
def run_final(request: HttpRequest, pk: int) -> HttpResponse:
    """Choose or un-choose a run as one of the team's final runs."""
    sub = run_or_404(request, pk)
    if not access.can_manage_run(request.user, sub):
        raise Http404("No such run.")
    final = request.POST.get("final") == "1"
    try:
        finals.set_final(submission=sub, user=request.user, final=final)
    except finals.ChoiceRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Run {sub.pk} is {'now' if final else 'no longer'} one of your final runs.",
        )
    return _back(request, sub)


@login_required
@require_POST
def run_visibility(request: HttpRequest, pk: int) -> HttpResponse:
    """Show a run to everyone or hide it from all but the team and organisers."""
    sub = run_or_404(request, pk)
    if not access.can_manage_run(request.user, sub):
        raise Http404("No such run.")
    hidden = request.POST.get("hidden") == "1"
    try:
        hiding.set_hidden(submission=sub, user=request.user, hidden=hidden)
    except finals.ChoiceRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Run {sub.pk} is {'hidden: only your team and the organisers see it' if hidden else 'public'}.",
        )
    return _back(request, sub)
