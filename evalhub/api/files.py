"""A test set's files through the REST API (``evalhub data pull``): the inputs to
anyone who may see the task, gold once released. The rule is the task page's
(``services/data/downloads``): where the organisers set data terms, a token's user
gets nothing before accepting their current version, and the refusal (403) says so
with the link to the terms."""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Router, Status

from evalhub.api.schemas import ErrorOut
from evalhub.competitions.models import TestSetFile
from evalhub.competitions.services import gates
from evalhub.competitions.services.data import downloads

router = Router(tags=["data"])


@router.get(
    "/tasks/{slug}/phases/{phase}/testsets/{test_set}/files/{role}",
    response={200: None, 403: ErrorOut},
    url_name="testset-file-download",
)
def file_download(
    request: HttpRequest, slug: str, phase: str, test_set: str, role: str
) -> HttpResponse | Status:
    """The file of ``role`` of a test set. 403: not yet (the data terms of the task
    are not accepted: ``detail`` names the page where to accept them); 404: no such
    file for you."""
    f = get_object_or_404(
        TestSetFile.objects.select_related("test_set__phase__task"),
        test_set__phase__task__slug=slug,
        test_set__phase__slug=phase,
        test_set__slug=test_set,
        role=role,
    )
    try:
        downloads.check(user=request.auth, file=f)
    except downloads.NotFound:
        raise Http404("No such file.") from None
    except gates.Refused as exc:
        return Status(403, {"detail": str(exc.refusal)})
    response = FileResponse(
        f.file.open("rb"), as_attachment=True, filename=f.original_name
    )
    response["Content-Type"] = "application/octet-stream"
    response["Cache-Control"] = "private, no-store"
    return response
