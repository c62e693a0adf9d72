"""Test sets' files and plots, served through the leak rules."""

from __future__ import annotations

import mimetypes
from urllib.parse import urlencode

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect

from evalhub.competitions.models import TestSet, TestSetFile
from evalhub.competitions.services import gates
from evalhub.competitions.services.boards import exports
from evalhub.competitions.services.data import downloads
from evalhub.competitions.views.lookups import track_or_404

#: The extension of a figure drawn for a phone's column.
NARROW = "narrow.svg"
#: Types a test set's file keeps when its name gives one: none a browser runs.
PASSIVE = frozenset(
    {
        "text/plain",
        "text/csv",
        "text/tab-separated-values",
        "application/json",
        "application/zip",
        "application/gzip",
        "application/pdf",
    }
)


def test_set_plot(request: HttpRequest, pk: int, key: str, ext: str) -> HttpResponse:
    """A figure of the test set's board of ``?track=`` (none: of every track);
    ``narrow.svg``: drawn for a phone (the SVG for a figure drawn before)."""
    test_set = get_object_or_404(TestSet.objects.select_related("phase__task"), pk=pk)
    track = track_or_404(request, test_set.phase)
    try:
        art = exports.figure(test_set=test_set, key=key, user=request.user, track=track)
    except exports.NotVisible:
        raise Http404("No such plot.") from None
    field = {
        "svg": art.svg,
        "png": art.png,
        NARROW: art.svg_narrow or art.svg,
    }.get(ext)
    if not field:
        raise Http404("No such plot.")
    return serve(field, ext)


def test_set_file(request: HttpRequest, pk: int, role: str) -> HttpResponse:
    f = get_object_or_404(
        TestSetFile.objects.select_related("test_set__phase__task"),
        test_set_id=pk,
        role=role,
    )
    try:
        downloads.check(user=request.user, file=f)
    except downloads.NotFound:
        raise Http404("No such file.") from None
    except gates.Refused as exc:
        # Where to put it right (accept the data terms), and back here after.
        messages.info(request, exc.refusal.message)
        query = urlencode({"next": request.get_full_path()})
        return redirect(f"{exc.refusal.path}?{query}")
    response = FileResponse(
        f.file.open("rb"), as_attachment=True, filename=f.original_name
    )
    if response["Content-Type"].split(";")[0].strip() not in PASSIVE:
        # Typed by a name someone chose (``x.html``, ``x.svg``): a copy of the
        # site without this header (``archive site``) would serve it as a page.
        response["Content-Type"] = "application/octet-stream"
    return response


def serve(field, ext: str) -> HttpResponse:  # noqa: ANN001
    if ext not in ("svg", "png", NARROW):
        raise Http404("No such plot.")
    content_type = (
        "image/svg+xml"
        if ext in ("svg", NARROW)
        else (mimetypes.guess_type(f"x.{ext}")[0] or "application/octet-stream")
    )
    response = FileResponse(field.open("rb"), content_type=content_type)
    response["Cache-Control"] = "private, max-age=60"
    response["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'"
    )
    return response
