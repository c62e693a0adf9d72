"""The REST API under ``/api/`` (OpenAPI schema at ``/api/openapi.json``, docs at
``/api/docs``). Authentication: ``Authorization: Bearer <token>`` with a token made on
the API-token page. Reading works anonymously with the public's view; writing needs a
token. Each endpoint's ``auth`` names the scope of token it needs (``scopes.py``):
reading any token, submitting runs ``submit``, the *organisers* calls
(``organiser.py``) ``organise`` for the task (a token of one of its organisers).
Each endpoint: authentication, one service call, the response.

A run's former ``final`` field (the same as ``done``) is removed: read ``done``;
``final_run`` is the team's choice of final runs (``docs/changelog.md``)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import File, Form, NinjaAPI, Schema, Status, Swagger
from ninja.files import UploadedFile

from evalhub.api import after_campaign, files, organiser, participants, scopes
from evalhub.api.auth import OptionalTokenAuth, TokenAuth
from evalhub.api.schemas import ErrorOut, ProblemsOut, TaskOut
from evalhub.api.services import resources
from evalhub.competitions.models import Phase, SharedTask, Submission
from evalhub.competitions.services.boards import access, exports, kept_exports
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import submit

api = NinjaAPI(
    title="evalhub API",
    version="1",
    urls_namespace="api:api-v1",
    auth=OptionalTokenAuth(scopes.READ),
    description=__doc__,
    # An operation's path is text, not a link inside its toggle button (nested
    # controls: the accessibility suite); templates/ninja/swagger.html styles it.
    docs=Swagger(settings={"deepLinking": False}),
)
api.add_router("", organiser.router)
api.add_router("", after_campaign.router)
api.add_router("", files.router)
api.add_router("", participants.router)


class MetricOut(Schema):
    key: str
    label: str
    higher_is_better: bool


class FileOut(Schema):
    role: str
    name: str
    sha256: str
    url: str


class TestSetOut(Schema):
    slug: str
    name: str
    visibility: str
    scores_public: bool
    files: list[FileOut]


class TrackOut(Schema):
    slug: str
    name: str
    description: str


class PhaseOut(Schema):
    slug: str
    name: str
    opens_at: datetime
    closes_at: datetime
    is_open: bool
    daily_limit: int
    total_limit: int
    #: The limits count each track's runs apart (else shared by the phase).
    limits_per_track: bool = False
    #: An evaluation after the campaign: ranked apart, not an official result.
    after_campaign: bool = False
    #: The key of the metric that ranks the phase's boards (the task's
    #: ``primary_metric`` unless the organisers chose another).
    ranking_metric: str = ""
    #: The phase's tracks; a run must name one of them (``track``) when any.
    tracks: list[TrackOut] = []
    test_sets: list[TestSetOut]


class TaskDetailOut(TaskOut):
    description: str
    primary_metric: str
    metrics: list[MetricOut]
    phases: list[PhaseOut]


class RunOut(Schema):
    id: int
    task: str
    phase: str
    team: str
    method_name: str
    status: str
    #: Nothing more happens to the run until someone acts (scored, failed or
    #: rejected).
    done: bool
    #: Shown to its team and the organisers only.
    hidden: bool
    #: One of its team's chosen final runs (None: not yours to know).
    final_run: bool | None
    #: The slug of the track the run competes in (None: the phase has no tracks).
    track: str | None = None
    failure_category: str
    errors: list[str]
    warnings: list[str]
    scores: dict[str, dict[str, float | None]]
    created_at: datetime
    finished_at: datetime | None
    url: str


class AllowanceOut(Schema):
    team: str
    daily_left: int
    total_left: int
    resets_at: datetime


class TeamRunsOut(Schema):
    allowance: AllowanceOut | None
    runs: list[RunOut]


class BoardOut(Schema):
    test_set: str
    #: The track this board ranks (None: the phase has no tracks).
    track: str | None = None
    #: The metric that ranks this board (the phase's ranking metric).
    primary_metric: str
    #: Which metric ranks it, as a sentence ("Ranked by F1 (f1; ...).").
    ranked_by: str = ""
    #: The bootstrap statistics' signature ("" until computed).
    signature: str = ""
    #: What the bands mean (unit, n, rule, correction, comparisons per band), or
    #: why there are none ("2 documents: no difference can be significant ...").
    bands: str = ""
    #: How a mean over fewer cells is ranked, when a row has one ("" otherwise).
    coverage_rule: str = ""
    #: Ranked runs: rank, team, run, method, submitted_at, baseline, every metric,
    #: the primary metric's interval (interval_low, interval_high, and as text:
    #: interval, e.g. "n = 1: no interval") and rank band
    #: (None until computed), coverage ("1 of 3 word classes judged": a mean over
    #: fewer cells, ranked after every mean over more; None: complete); for organisers also hidden and final; ``system``: the
    #: run's method's fact-sheet answers and paper, as this viewer may see them.
    rows: list[dict[str, object]]


class LeaderboardOut(Schema):
    task: str
    phase: str
    #: The per-system columns of the rows' ``system`` (key, label, description,
    #: on_leaderboard): fact-sheet questions and the paper.
    system_columns: list[dict[str, object]] = []
    test_sets: list[BoardOut]


def _task(request: HttpRequest, slug: str) -> SharedTask:
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.can_see_task(request.auth, task):
        raise Http404("No such task.")
    return task


def _phase(request: HttpRequest, slug: str, phase: str) -> Phase:
    return get_object_or_404(Phase, task=_task(request, slug), slug=phase)


@api.get("/tasks", response=list[TaskOut], url_name="task-list")
def task_list(request: HttpRequest) -> list[dict[str, object]]:
    return [
        resources.task_summary(t) for t in resources.visible_tasks(user=request.auth)
    ]


@api.get("/tasks/{slug}", response=TaskDetailOut, url_name="task-detail")
def task_detail(request: HttpRequest, slug: str) -> dict[str, object]:
    return resources.task_detail(task=_task(request, slug), user=request.auth)


@api.get(
    "/tasks/{slug}/phases/{phase}/leaderboard",
    response=LeaderboardOut,
    url_name="leaderboard-detail",
)
def leaderboard(
    request: HttpRequest, slug: str, phase: str, track: str = ""
) -> HttpResponse:
    """A board per (test set, track) you may see: every track's, or with
    ``track`` (a track's slug) that track's only (404: no such track)."""
    phase_obj = _phase(request, slug, phase)
    track_obj = tracks.by_slug(phase=phase_obj, slug=track) if track else None
    if track and track_obj is None:
        raise Http404("No such track.")
    body = kept_exports.leaderboard_text(
        kind=LEADERBOARD, phase=phase_obj, user=request.auth, track=track_obj
    )
    return HttpResponse(body, content_type=api.get_content_type())


def _leaderboard_text(*, phase: Phase, user: object, track: object) -> str:
    """The leaderboard's answer as django-ninja writes one: the boards checked
    against ``LeaderboardOut`` and rendered by the API's renderer. Kept per change
    and audience (``kept_exports``): written per request, ninja's checking of a
    1,000-team board cost about a tenth of a second of CPU."""
    data = exports.leaderboard_export(phase=phase, user=user, track=track)
    out = LeaderboardOut.model_validate(data).model_dump()
    return api.renderer.render(None, out, response_status=200)


#: The kind of kept text the leaderboard's answer is (``kept_exports.register``).
LEADERBOARD = "api.json"
kept_exports.register(LEADERBOARD, _leaderboard_text)


@api.get(
    "/tasks/{slug}/phases/{phase}/runs",
    response={200: TeamRunsOut},
    auth=TokenAuth(scopes.READ),
    url_name="run-list",
)
def team_runs(request: HttpRequest, slug: str, phase: str) -> dict[str, object]:
    """The runs of your team in the phase, newest first, and what is left to submit."""
    phase_obj = _phase(request, slug, phase)
    return {
        "allowance": resources.allowance(phase=phase_obj, user=request.auth),
        "runs": resources.team_runs(phase=phase_obj, user=request.auth),
    }


@api.post(
    "/tasks/{slug}/phases/{phase}/runs",
    response={201: RunOut, 403: ErrorOut, 422: ProblemsOut},
    auth=TokenAuth(scopes.SUBMIT),
    url_name="run-create",
)
def run_create(
    request: HttpRequest,
    slug: str,
    phase: str,
    file: File[UploadedFile],
    method_name: Form[str],
    method_description: Form[str] = "",
    hidden: Form[bool] = False,
    track: Form[str] = "",
) -> Status:
    """Submit a run file (multipart). 201: queued; 422: the file does not parse (the
    errors name file and line; not counted against limits); 403: not allowed now,
    or ``track`` (the slug of one of the phase's tracks) is missing or unknown in a
    phase with tracks."""
    phase_obj = _phase(request, slug, phase)
    if not method_name.strip() or len(method_name) > 100:
        return Status(
            422,
            {
                "detail": "A method name of 1 to 100 characters is required.",
                "errors": [],
                "total": 0,
                "run": None,
            },
        )
    limit = settings.MAX_UPLOAD_BYTES
    try:
        if file.size and file.size > limit:
            raise submit.SubmissionRefused(
                f"{file.name} is {file.size:,} bytes; the limit is {limit:,} bytes."
            )
        sub = submit.submit_run(
            phase=phase_obj,
            user=request.auth,
            filename=file.name or "run",
            data=file.read(),
            method_name=method_name,
            method_description=method_description,
            hidden=hidden,
            track=track,
        )
    except submit.SubmissionRefused as exc:
        return Status(403, {"detail": str(exc)})
    except submit.SubmissionInvalid as exc:
        rejected = (
            Submission.objects.filter(
                phase=phase_obj,
                submitter=request.auth,
                status=Submission.Status.REJECTED,
            )
            .values_list("pk", flat=True)
            .first()
        )
        return Status(
            422,
            {
                "detail": "The file was rejected; nothing was counted.",
                "errors": [
                    {"file": p.file, "line": p.line, "message": p.message}
                    for p in exc.problems
                ],
                "total": exc.total,
                "run": rejected,
            },
        )
    return Status(201, resources.run_status(submission=sub, user=request.auth))


@api.get("/runs/{run_id}", response=RunOut, url_name="run-detail")
def run_detail(request: HttpRequest, run_id: int) -> dict[str, object]:
    sub = get_object_or_404(
        Submission.objects.select_related("phase__task", "team"), pk=run_id
    )
    if not access.can_see_run(request.auth, sub):
        raise Http404("No such run.")
    return resources.run_status(submission=sub, user=request.auth)
