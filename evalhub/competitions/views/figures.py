"""A leaderboard figure's data as CSV, beside its SVG/PNG/PDF."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from evalhub.competitions.models import TestSet
from evalhub.competitions.services.boards import exports, figures


def test_set_plot_data(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    test_set = get_object_or_404(TestSet.objects.select_related("phase__task"), pk=pk)
    try:
        body = figures.figure_csv(test_set=test_set, key=key, user=request.user)
    except exports.NotVisible:
        raise Http404("No such figure.") from None
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{test_set.slug}-{key}.csv"'
    )
    response["Cache-Control"] = "private, no-cache"
    return response
