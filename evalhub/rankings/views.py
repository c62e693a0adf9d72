"""Significance pages and exports, and the console's page of a phase's ranking
settings. Each view: authentication, one service call, render."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from evalhub.competitions.models import Phase, TestSet
from evalhub.competitions.services.boards import access
from evalhub.competitions.views.lookups import organised_task_or_404, track_or_404
from evalhub.rankings.forms import RankingForm
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import (
    charts,
    exports,
    package,
    package_files,
    ranking_settings,
    statistics,
)


def _page(request: HttpRequest, pk: int) -> dict[str, object]:
    test_set = get_object_or_404(TestSet.objects.select_related("phase__task"), pk=pk)
    try:
        return exports.significance(
            test_set=test_set,
            user=request.user,
            track_slug=request.GET.get("track"),
        )
    except exports.Hidden:
        raise Http404("No such test set.") from None


def significance_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "rankings/significance_detail.html", _page(request, pk))


def significance_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    page = _page(request, pk)
    name = f"significance-{page['test_set'].slug}"  # type: ignore[attr-defined]
    if page["track"] is not None:
        name += f"-{page['track'].slug}"  # type: ignore[attr-defined]
    if fmt == "json":
        body, kind = json.dumps(exports.as_json(page), indent=1), "application/json"
    elif fmt == "csv":
        body, kind = exports.as_csv(page), "text/csv; charset=utf-8"
    elif fmt == "tex":
        body, kind = exports.as_latex(page), "text/x-tex; charset=utf-8"
    else:
        raise Http404("No such format.")
    response = HttpResponse(body, content_type=kind)
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response


_CHART_TYPES = {
    "svg": "image/svg+xml",
    "narrow.svg": "image/svg+xml",
    "png": "image/png",
    "pdf": "application/pdf",
}


def chart_detail(request: HttpRequest, pk: int, ext: str) -> HttpResponse:
    """The interval chart of the test set's board of ``?track=`` (none: of every
    track together); ``narrow.svg``: drawn for a phone."""
    row = get_object_or_404(
        TestSetStatistics.objects.select_related("test_set__phase__task"),
        test_set_id=pk,
    )
    test_set = row.test_set
    track = track_or_404(request, test_set.phase)
    if not access.can_see_task(
        request.user, test_set.phase.task
    ) or not access.can_see_scores(request.user, test_set):
        raise Http404("No such chart.")
    if not access.can_see_hidden_runs(
        request.user, test_set.phase.task
    ) and statistics.draws_hidden_runs(row):
        raise Http404("No such chart.")
    chart = charts.chart_of(row, track)
    if chart is None:
        raise Http404("No such chart.")
    if ext == "csv":
        body = charts.intervals_csv(
            test_set=test_set,
            data=row.data,
            user=request.user,
            track_id=None if track is None else track.pk,
        )
        response = HttpResponse(body, content_type="text/csv; charset=utf-8")
        name = f"{test_set.slug}-" + (f"{track.slug}-" if track else "") + "intervals"
        response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
        response["Cache-Control"] = "private, max-age=60"
        return response
    if ext == "pdf" and track is None:
        # The stored PDF, or for statistics stored before the job kept one, drawn
        # once and cached (``charts.interval_chart_pdf``).
        drawn = charts.interval_chart_pdf(test_set=test_set, render=True)
        if drawn is None:
            raise Http404("No such chart.")
        response = HttpResponse(drawn.pdf, content_type=_CHART_TYPES[ext])
    else:
        field = {
            "svg": chart.chart_svg,
            "png": chart.chart_png,
            "pdf": chart.chart_pdf,
            "narrow.svg": chart.chart_svg_narrow or chart.chart_svg,
        }.get(ext)
        if not field:
            raise Http404("No such chart.")
        response = FileResponse(field.open("rb"), content_type=_CHART_TYPES[ext])
    response["Cache-Control"] = "private, max-age=60"
    response["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'"
    )
    return response


def comparison_detail(request: HttpRequest, pk: int, a: int, b: int) -> HttpResponse:
    test_set = get_object_or_404(TestSet.objects.select_related("phase__task"), pk=pk)
    try:
        data = statistics.compare_runs(
            test_set=test_set, run_a=a, run_b=b, user=request.user
        )
    except statistics.NotComparable:
        raise Http404("No such comparison.") from None
    return HttpResponse(json.dumps(data, indent=1), content_type="application/json")


def package_download(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """The overview-paper package (zip), or a "being prepared" page (202) that
    reloads itself while a worker draws its figures."""
    phase_obj = get_object_or_404(
        Phase.objects.select_related("task"), task__slug=slug, slug=phase
    )
    try:
        name, body = package_files.download(phase=phase_obj, user=request.user)
    except package.NotAvailable:
        raise Http404("No such package.") from None
    except package.Preparing:
        context = {"phase": phase_obj, "task": phase_obj.task}
        response = render(request, "rankings/package_preparing.html", context)
        response.status_code = 202
        response["Cache-Control"] = "no-store"
        return response
    response = HttpResponse(body, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
def phase_ranking(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """The console's ranking settings of a phase (organisers only, 404 otherwise)."""
    task = organised_task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    ranking = ranking_settings.current(phase=phase_obj)
    form = RankingForm(request.POST or None, instance=ranking)
    if request.method == "POST" and form.is_valid():
        before = ranking_settings.current(phase=phase_obj)
        changed = ranking_settings.changed(before=before, after=form.cleaned_data)
        ranking_settings.save(phase=phase_obj, values=form.cleaned_data)
        what = ", ".join(changed) if changed else "nothing changed"
        messages.success(
            request,
            f"Ranking settings of {phase_obj.name} saved ({what}): the statistics "
            "of its test sets are being computed again.",
        )
        return redirect("console:ranking", slug=task.slug, phase=phase_obj.slug)
    context = {
        "task": task,
        "phase": phase_obj,
        "form": form,
        "saved": ranking.pk is not None,
        "computed": ranking_settings.computed(phase=phase_obj),
        "ranked_by": ranking_settings.ranked_by(phase=phase_obj),
    }
    status = 422 if form.errors else 200
    return render(request, "rankings/phase_ranking.html", context, status=status)
