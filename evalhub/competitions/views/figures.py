"""A leaderboard figure's data as CSV, beside its SVG/PNG/PDF."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from evalhub.competitions.models import TestSet
from evalhub.competitions.services.boards import exports, figures
from evalhub.competitions.views.lookups import track_or_404


def test_set_plot_data(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    test_set = get_object_or_404(TestSet.objects.select_related("phase__task"), pk=pk)
    track = track_or_404(request, test_set.phase)
    try:
        body = figures.figure_csv(
            test_set=test_set, key=key, user=request.user, track=track
        )
    except exports.NotVisible:
        raise Http404("No such figure.") from None
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    name = f"{test_set.slug}-" + (f"{track.slug}-" if track else "") + key
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'

    response["Cache-Control"] = "private, no-cache"
    return response
