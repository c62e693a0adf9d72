"""Test sets' files and plots, served through the leak rules."""

from __future__ import annotations

import mimetypes

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from evalhub.competitions.models import TaskArtefact, TestSetFile
from evalhub.competitions.services.boards import access


def test_set_plot(request: HttpRequest, pk: int, key: str, ext: str) -> HttpResponse:
    art = get_object_or_404(
        TaskArtefact.objects.select_related("test_set__phase__task"),
        test_set_id=pk,
        key=key,
    )
    if not access.can_see_task_artefact(request.user, art):
        raise Http404("No such plot.")
    field = art.svg if ext == "svg" else art.png
    if not field:
        raise Http404("No such plot.")
    return serve(field, ext)


def test_set_file(request: HttpRequest, pk: int, role: str) -> HttpResponse:
    f = get_object_or_404(
        TestSetFile.objects.select_related("test_set__phase__task"),
        test_set_id=pk,
        role=role,
    )
    task = f.test_set.phase.task
    if not access.can_see_task(request.user, task):
        raise Http404("No such file.")
    if f.private and not (
        access.is_organiser(request.user, task) or task.gold_released
    ):
        raise Http404("No such file.")
    return FileResponse(f.file.open("rb"), as_attachment=True, filename=f.original_name)


def serve(field, ext: str) -> HttpResponse:  # noqa: ANN001
    if ext not in ("svg", "png"):
        raise Http404("No such plot.")
    content_type = (
        "image/svg+xml"
        if ext == "svg"
        else (mimetypes.guess_type(f"x.{ext}")[0] or "application/octet-stream")
    )
    response = FileResponse(field.open("rb"), content_type=content_type)
    response["Cache-Control"] = "private, max-age=60"
    response["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'"
    )
    return response
