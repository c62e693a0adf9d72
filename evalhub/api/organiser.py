"""The organiser API (``evalhub task push``, ``evalhub test-data push``, ``evalhub runs
pull``): a token of one of the task's organisers, with the ``organise`` scope for
the task (``scopes.py``), is required; anyone else is refused (401 without a valid
token, 403 naming the scope for a token without it, 403 for a task they may see but
do not organise, 404 for one they may not see). Creating a task from a bundle needs
the right to create tasks (``services/roles.may_create_tasks``) and an ``organise``
token, which then organises the new task too. Each endpoint: authentication, one service
call, the response."""

from __future__ import annotations

from datetime import datetime

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Body, File, Router, Schema, Status
from ninja.errors import HttpError
from ninja.files import UploadedFile

from evalhub.api import scopes
from evalhub.api.auth import TokenAuth
from evalhub.api.schemas import ErrorOut, ProblemsOut, TaskOut
from evalhub.api.services import organiser, resources, tokens
from evalhub.competitions.models import Phase, SharedTask, Submission, TestSet
from evalhub.competitions.services import phase_settings, roles, test_data
from evalhub.competitions.services.boards import access, exports
from evalhub.competitions.services.data import bundles, drafts, tracks

router = Router(auth=TokenAuth(scopes.ORGANISE), tags=["organisers"])


class RunScoresOut(Schema):
    id: int
    phase: str
    #: The slug of the run's track (None: the phase has no tracks).
    track: str | None
    team: str
    method_name: str
    status: str
    #: Nothing more happens to the run until someone acts.
    done: bool
    hidden: bool
    #: One of its team's chosen final runs.
    final_run: bool
    baseline: bool
    failure_category: str
    errors: list[str]
    warnings: list[str]
    #: The name the file was submitted under.
    file_name: str
    size: int
    sha256: str
    #: test set slug -> metric -> value: every score (scored runs only).
    scores: dict[str, dict[str, float | None]]
    created_at: datetime
    finished_at: datetime | None
    url: str
    #: Where the API serves the run file (None: no file, e.g. a baseline).
    file_url: str | None


class RunTestSetOut(Schema):
    phase: str
    slug: str
    name: str
    visibility: str
    revealed: bool
    gold_version: int


class TaskRunsOut(Schema):
    task: str
    primary_metric: str
    test_sets: list[RunTestSetOut]
    runs: list[RunScoresOut]


class TestDataFileOut(Schema):
    role: str
    label: str
    #: Hidden gold (True) or a public input.
    private: bool
    name: str
    size: int
    #: The stored file this one replaces (None: new).
    replaces: str | None
    replaces_size: int | None


class TestDataCountOut(Schema):
    label: str
    before: int | None
    after: int | None


class RescoredRunOut(Schema):
    id: int
    team: str
    method_name: str
    hidden: bool
    baseline: bool


class TestDataDraftOut(Schema):
    #: Confirm with ``POST url``, discard with ``DELETE url``.
    token: str
    task: str
    phase: str
    test_set: str
    gold_version: int
    files: list[TestDataFileOut]
    counts: list[TestDataCountOut]
    #: The test set has its gold after these files.
    has_gold: bool
    examples: list[str]
    warnings: list[str]
    #: A gold file is added or replaced.
    changes_gold: bool
    #: The runs scored again once the files are stored: any change of a file the
    #: scorer reads (an input or gold) scores the runs that rested on it again.
    rescored: list[RescoredRunOut]
    url: str


class TestDataStoredOut(Schema):
    files: int
    rescored: int
    gold_version: int


def organised_task(request: HttpRequest, slug: str) -> SharedTask:
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.can_see_task(request.auth, task):
        raise Http404("No such task.")
    if not roles.is_organiser(request.auth, task):
        raise HttpError(403, f"Only the organisers of {task.slug} may do this.")
    return task


def _phase(request: HttpRequest, slug: str, phase: str) -> Phase:
    return get_object_or_404(Phase, task=organised_task(request, slug), slug=phase)


def _test_set(request: HttpRequest, slug: str, phase: str, test_set: str) -> TestSet:
    return get_object_or_404(
        TestSet.objects.select_related("phase__task"),
        phase=_phase(request, slug, phase),
        slug=test_set,
    )


def _problems(detail: str, problems: list, total: int) -> dict[str, object]:
    return {
        "detail": detail,
        "errors": [
            {"file": p.file, "line": p.line, "message": p.message} for p in problems
        ],
        "total": max(total, len(problems)),
        "run": None,
    }


@router.post(
    "/bundles",
    response={201: TaskOut, 403: ErrorOut, 422: ProblemsOut},
    url_name="bundle-import",
)
def bundle_import(request: HttpRequest, bundle: File[UploadedFile]) -> Status:
    """Create a task from a bundle (a zip of ``task.yaml`` and its data files; the
    console's *Export bundle* makes one). You become its organiser and owner. 422:
    every problem with its file and line; nothing is created."""
    if not roles.may_create_tasks(request.auth):
        return Status(403, {"detail": "Your account may not create tasks."})
    try:
        task = bundles.import_bundle(data=bundle.read(), user=request.auth)
    except bundles.BundleError as exc:
        detail = "The bundle was not imported; nothing was created."
        return Status(422, _problems(detail, exc.problems, len(exc.problems)))
    tokens.add_task(request.api_token, task)  # type: ignore[attr-defined]
    return Status(201, resources.task_summary(task))


@router.get("/tasks/{slug}/runs", response=TaskRunsOut, url_name="task-run-list")
def task_runs(
    request: HttpRequest, slug: str, phase: str = "", status: str = "", track: str = ""
) -> dict[str, object]:
    """Every run of the task, oldest first, with every score on every test set
    (private, unrevealed and Ladder-withheld ones too: you organise the task).
    ``phase``, ``status`` and ``track`` (slugs; a track of ``phase``) narrow the
    list."""
    task = organised_task(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase) if phase else None
    track_obj = None
    if track:
        if phase_obj is None:
            raise HttpError(422, "Name the phase of the track (phase=...).")
        track_obj = tracks.by_slug(phase=phase_obj, slug=track)
        if track_obj is None:
            raise Http404("No such track.")
    if status and status not in Submission.Status.values:
        known = ", ".join(Submission.Status.values)
        raise HttpError(422, f"Unknown status {status!r}; one of: {known}.")
    return organiser.task_runs(
        task=task, user=request.auth, phase=phase_obj, status=status, track=track_obj
    )


@router.get("/tasks/{slug}/runs/{run_id}/file", url_name="task-run-file")
def task_run_file(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """The run's file as it was submitted."""
    task = organised_task(request, slug)
    sub = get_object_or_404(Submission, pk=run_id, phase__task=task)
    if not sub.file:
        raise Http404("This run has no file.")
    return FileResponse(
        sub.file.open("rb"), as_attachment=True, filename=sub.original_name
    )


@router.get("/tasks/{slug}/phases/{phase}/runs.zip", url_name="phase-runs-zip")
def phase_runs_zip(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """Every run file of the phase and ``manifest.csv`` (run, team, method, status,
    hidden, final, every score): the export of the organisers' dashboard."""
    phase_obj = _phase(request, slug, phase)
    archive = exports.runs_zip(phase=phase_obj, user=request.auth)
    return FileResponse(
        archive,
        as_attachment=True,
        filename=f"{slug}-{phase}-runs.zip",
        content_type="application/zip",
    )


_TEST_DATA = "/tasks/{slug}/phases/{phase}/testsets/{test_set}/test-data"
_FILES_BODY = {
    "requestBody": {
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "description": "One file per role of the task type (the part's "
                    "name is the role, e.g. gold or source_terms).",
                    "additionalProperties": {"type": "string", "format": "binary"},
                }
            }
        },
        "required": True,
    }
}


@router.post(
    _TEST_DATA,
    response={201: TestDataDraftOut, 422: ProblemsOut},
    url_name="test-data-draft-create",
    openapi_extra=_FILES_BODY,
)
def test_data_draft_create(
    request: HttpRequest, slug: str, phase: str, test_set: str
) -> Status:
    """Check a test set's new files (multipart, each part named by its role) with
    its stored ones, as the scorer will, and keep them as your draft: nothing is
    used until you confirm. 201: the preview the console shows (what the task type
    understood, counts before and after, warnings, the runs scored again); 422:
    every problem with the uploaded file's name and line."""
    ts = _test_set(request, slug, phase, test_set)
    uploads = [
        test_data.Upload(role, f.name or role, f.read())
        for role, files in request.FILES.lists()
        for f in files
    ]
    try:
        preview = organiser.stage_test_data(
            test_set=ts, user=request.auth, uploads=uploads
        )
    except test_data.UploadRejected as exc:
        detail = "The files were not accepted; nothing was kept."
        return Status(422, _problems(detail, exc.problems, exc.total))
    return Status(201, preview)


@router.get(
    _TEST_DATA + "/{token}",
    response={200: TestDataDraftOut, 404: ErrorOut},
    url_name="test-data-draft-detail",
)
def test_data_draft_detail(
    request: HttpRequest, slug: str, phase: str, test_set: str, token: str
) -> Status:
    """Your draft's preview again (404: expired, discarded or stored)."""
    ts = _test_set(request, slug, phase, test_set)
    try:
        preview = organiser.test_data_draft(test_set=ts, user=request.auth, token=token)
    except drafts.DraftGone as exc:
        return Status(404, {"detail": str(exc)})
    return Status(200, preview)


@router.post(
    _TEST_DATA + "/{token}",
    response={200: TestDataStoredOut, 404: ErrorOut, 409: ErrorOut},
    url_name="test-data-draft-confirm",
)
def test_data_draft_confirm(
    request: HttpRequest, slug: str, phase: str, test_set: str, token: str
) -> Status:
    """Store your draft: new gold bumps the gold version and scores every affected
    run of the phase again. 409: the test set's files or the task settings changed
    since the check (upload again); 404: no such draft."""
    ts = _test_set(request, slug, phase, test_set)
    try:
        stored = organiser.confirm_test_data(
            test_set=ts, user=request.auth, token=token
        )
    except drafts.DraftGone as exc:
        return Status(404, {"detail": str(exc)})
    except test_data.DraftStale as exc:
        return Status(409, {"detail": str(exc)})
    return Status(200, stored)


@router.delete(
    _TEST_DATA + "/{token}",
    response={204: None, 404: ErrorOut},
    url_name="test-data-draft-discard",
)
def test_data_draft_discard(
    request: HttpRequest, slug: str, phase: str, test_set: str, token: str
) -> Status:
    """Discard your draft; nothing is stored."""
    ts = _test_set(request, slug, phase, test_set)
    try:
        drafts.discard(
            test_set_id=ts.pk,
            user_id=request.auth.pk,  # type: ignore[union-attr]
            token=token,
        )
    except drafts.DraftGone as exc:
        return Status(404, {"detail": str(exc)})
    return Status(204, None)


@router.get(
    "/tasks/{slug}/phases/{phase}/settings/{section}",
    response=dict[str, object],
    url_name="phase-settings-detail",
)
def phase_settings_detail(
    request: HttpRequest, slug: str, phase: str, section: str
) -> dict[str, object]:
    """A section of the phase's settings (``ranking``: Ladder on/off and margin,
    bootstrap samples, seed, significance level), as the console's page shows it."""
    try:
        return phase_settings.read(phase=_phase(request, slug, phase), key=section)
    except phase_settings.UnknownSection:
        raise Http404(f"No settings section {section!r}.") from None


@router.put(
    "/tasks/{slug}/phases/{phase}/settings/{section}",
    response={200: dict[str, object], 422: ErrorOut},
    url_name="phase-settings-change",
)
def phase_settings_change(
    request: HttpRequest,
    slug: str,
    phase: str,
    section: str,
    values: Body[dict[str, object]],
) -> object:
    """Change the settings named in the body (the others kept); saving refreshes
    the phase's boards and statistics, and the Ladder is replayed from the
    submission history. 422 with every problem stores nothing."""
    phase_obj = _phase(request, slug, phase)
    try:
        return phase_settings.write(phase=phase_obj, key=section, values=values)
    except phase_settings.UnknownSection:
        raise Http404(f"No settings section {section!r}.") from None
    except phase_settings.SettingsRefused as exc:
        return Status(422, {"detail": "; ".join(exc.problems)})
