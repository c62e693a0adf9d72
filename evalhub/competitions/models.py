"""Shared tasks, phases, test sets, teams, submissions and their scores.

The ``Submission`` row is the truth about a run: workers claim it atomically, the
sweeper finishes stuck ones, and pages read the row, never Celery's result store.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from evalhub.precompiled import Precompiled
from tasks import registry


def _task_type_choices() -> list[tuple[str, str]]:
    return [(slug, slug.replace("_", " ")) for slug in registry.slugs()]


class SharedTask(models.Model):
    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"
        ARCHIVED = "archived", "Archived"

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, help_text="Markdown")
    task_type = models.CharField(max_length=64, choices=_task_type_choices)
    task_settings = models.JSONField(
        default=dict, blank=True, help_text="Task-type settings (JSON)"
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organised_tasks", blank=True
    )
    state = models.CharField(max_length=16, choices=State.choices, default=State.DRAFT)
    requires_approval = models.BooleanField(default=False)
    gold_released = models.BooleanField(
        default=False, help_text="Per-item outcomes become public"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("competitions:task-detail", args=[self.slug])

    @property
    def type(self):  # noqa: ANN201 - a tasks.base.TaskType
        return registry.get(self.task_type)

    def parsed_settings(self):  # noqa: ANN201
        return self.type.parse_settings(self.task_settings)

    def is_organiser(self, user: object) -> bool:
        if not getattr(user, "is_authenticated", False):
            return False
        if getattr(user, "is_superuser", False):
            return True
        return self.pk in organised_task_ids(user)

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        from tasks.base import SettingsError

        try:
            self.type.parse_settings(self.task_settings)
        except (SettingsError, KeyError) as exc:
            raise ValidationError({"task_settings": str(exc)}) from exc


class Phase(models.Model):
    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="phases"
    )
    slug = models.SlugField()
    name = models.CharField(max_length=100)
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    daily_limit = models.PositiveIntegerField(
        default=5, help_text="Runs per team per UTC day"
    )
    total_limit = models.PositiveIntegerField(
        default=100, help_text="Runs per team in this phase"
    )
    failed_runs_count = models.BooleanField(
        default=False, help_text="Failed runs count against limits"
    )
    max_final_runs = models.PositiveIntegerField(
        default=1,
        help_text="Final runs a team may choose for the private test sets' ranking "
        "(a team that chooses none is ranked by its best public run); 0: every run "
        "counts and the best one per team is ranked",
    )
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "opens_at"]
        constraints = [
            models.UniqueConstraint(fields=["task", "slug"], name="phase_slug_unique")
        ]

    def __str__(self) -> str:
        return f"{self.task.slug} / {self.name}"

    def is_open(self, now=None) -> bool:  # noqa: ANN001
        now = now or timezone.now()
        return self.opens_at <= now < self.closes_at


class TestSet(models.Model):
    class Visibility(models.TextChoices):
        PUBLIC = "public", "Public"
        PRIVATE = "private", "Private (hidden until revealed)"

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="test_sets")
    slug = models.SlugField()
    name = models.CharField(max_length=100)
    visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    revealed = models.BooleanField(
        default=False, help_text="Private scores shown to everyone"
    )
    counts_for_ranking = models.BooleanField(default=True)
    gold_version = models.PositiveIntegerField(
        default=0, help_text="Bumped when gold is replaced"
    )
    order = models.PositiveIntegerField(default=0)

    __test__ = False  # not a pytest test class

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["phase", "slug"], name="testset_slug_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.phase} / {self.name}"

    @property
    def scores_public(self) -> bool:
        return self.visibility == self.Visibility.PUBLIC or self.revealed


def _data_path(instance: TestSetFile, filename: str) -> str:
    kind = "gold" if instance.private else "inputs"
    return f"tasks/{instance.test_set.phase.task_id}/testsets/{instance.test_set_id}/{kind}/{instance.role}/{filename}"


class TestSetFile(models.Model):
    """A public input or a hidden gold file of a test set (one per role)."""

    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="files"
    )
    role = models.CharField(max_length=64)
    private = models.BooleanField(help_text="Gold: never served to non-organisers")
    file = models.FileField(upload_to=_data_path, max_length=500)
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    uploaded_at = models.DateTimeField(auto_now=True)

    __test__ = False

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["test_set", "role"], name="testsetfile_role_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.test_set}: {self.role}"


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="teams")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Registration(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Awaiting approval"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="registrations"
    )
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="registrations"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "team"], name="registration_unique")
        ]

    def __str__(self) -> str:
        return f"{self.team} @ {self.task}"


def _run_path(instance: Submission, filename: str) -> str:
    return f"tasks/{instance.phase.task_id}/runs/{instance.team_id}/{filename}"


class Submission(models.Model):
    class Status(models.TextChoices):
        #: A large file waits for its full check by a worker (services/validation.py).
        VALIDATING = "validating", "Being checked"
        QUEUED = "queued", "Queued"
        SCORING = "scoring", "Scoring"
        SCORED = "scored", "Scored"
        FAILED = "failed", "Failed"
        REJECTED = "rejected", "Rejected"

    FINAL_STATES = frozenset({Status.SCORED, Status.FAILED, Status.REJECTED})

    class Failure(models.TextChoices):
        FORMAT = "format", "Format error"
        SCORER = "scorer", "Scorer error"
        TIMEOUT = "timeout", "Time limit exceeded"
        INFRASTRUCTURE = "infrastructure", "Infrastructure error"

    phase = models.ForeignKey(
        Phase, on_delete=models.CASCADE, related_name="submissions"
    )
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="submissions")
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="submissions",
    )
    file = models.FileField(upload_to=_run_path, max_length=500, blank=True)
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField(default=0)
    method_name = models.CharField(max_length=100)
    method_description = models.TextField(blank=True)
    is_baseline = models.BooleanField(default=False)
    #: Hidden runs exist only for their team and the organisers (CodaLab's "show on
    #: leaderboard" unticked): no leaderboard, run page, plot, export or API shows
    #: them to anyone else. Runs are shown by default.
    hidden = models.BooleanField(
        default=False, help_text="Shown to its team and the organisers only"
    )
    #: Chosen by its team as one of the phase's final runs (see services/finals.py).
    final_selected = models.BooleanField(default=False)
    final_selected_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    failure_category = models.CharField(
        max_length=16, choices=Failure.choices, blank=True
    )
    failure_message = models.TextField(blank=True)
    warnings = models.JSONField(default=list, blank=True)
    scorer_version = models.CharField(max_length=32, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    #: Which worker is scoring the row and when it last said it was alive.
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["phase", "team", "created_at"])]

    def __str__(self) -> str:
        return f"run {self.pk} ({self.team}, {self.method_name})"

    def get_absolute_url(self) -> str:
        return reverse("competitions:run-detail", args=[self.pk])

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL_STATES

    # --- single-row state transitions (atomic claims) ------------------------------
    @classmethod
    def claim(cls, pk: int) -> bool:
        """queued -> scoring; exactly one caller wins."""
        return (
            cls.objects.filter(pk=pk, status=cls.Status.QUEUED).update(
                status=cls.Status.SCORING,
                started_at=timezone.now(),
                attempts=models.F("attempts") + 1,
            )
            == 1
        )

    @classmethod
    def mark_scored(cls, pk: int, *, scorer_version: str, warnings: list[str]) -> bool:
        return (
            cls.objects.filter(pk=pk, status=cls.Status.SCORING).update(
                status=cls.Status.SCORED,
                scorer_version=scorer_version,
                warnings=warnings,
                failure_category="",
                failure_message="",
                finished_at=timezone.now(),
            )
            == 1
        )

    @classmethod
    def mark_failed(
        cls,
        pk: int,
        *,
        category: str,
        message: str,
        from_states: tuple[str, ...] = ("scoring",),
    ) -> bool:
        return (
            cls.objects.filter(pk=pk, status__in=from_states).update(
                status=cls.Status.FAILED,
                failure_category=category,
                failure_message=message,
                finished_at=timezone.now(),
            )
            == 1
        )

    @classmethod
    def requeue(cls, pk: int, *, from_state: str) -> bool:
        return (
            cls.objects.filter(pk=pk, status=from_state).update(
                status=cls.Status.QUEUED, started_at=None, finished_at=None
            )
            == 1
        )

    @classmethod
    def counting(cls) -> Q:
        """Rows that count against a team's limits in their phase."""
        return Q(
            status__in=[
                cls.Status.VALIDATING,
                cls.Status.QUEUED,
                cls.Status.SCORING,
                cls.Status.SCORED,
            ]
        ) | Q(status=cls.Status.FAILED, phase__failed_runs_count=True)

    def stuck_since(self) -> timedelta | None:
        if self.status != self.Status.SCORING or self.started_at is None:
            return None
        return timezone.now() - self.started_at


class Evaluation(models.Model):
    """The result of scoring one submission on one test set."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="evaluations"
    )
    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="evaluations"
    )
    scorer_version = models.CharField(max_length=32)
    gold_version = models.PositiveIntegerField()
    payload = models.JSONField(default=dict)
    curves = models.JSONField(default=list)
    warnings = models.JSONField(default=list)
    detail = models.JSONField(
        default=dict, help_text="Per-item outcomes: organiser-only until gold release"
    )
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "test_set"], name="evaluation_unique"
            )
        ]

    def __str__(self) -> str:
        return f"run {self.submission_id} on test set {self.test_set_id}"


class Score(models.Model):
    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="scores"
    )
    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="scores"
    )
    metric = models.CharField(max_length=64)
    value = models.FloatField(null=True)
    scorer_version = models.CharField(max_length=32)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "test_set", "metric"], name="score_unique"
            )
        ]
        indexes = [models.Index(fields=["test_set", "metric", "value"])]

    def __str__(self) -> str:
        # No value: a private test set's scores must not show up in lists or logs.
        return (
            f"{self.metric} of run {self.submission_id} on test set {self.test_set_id}"
        )


class ScoreSnapshot(models.Model):
    """A run's scores on a test set as they were before a rescore with other gold or
    another scorer version: kept so organisers can compare old and new."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="score_snapshots"
    )
    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="score_snapshots"
    )
    scorer_version = models.CharField(max_length=32)
    gold_version = models.PositiveIntegerField()
    #: metric key -> value (None where the metric was undefined)
    metrics = models.JSONField(default=dict)
    scored_at = models.DateTimeField(help_text="When these scores were computed")

    class Meta:
        ordering = ["-scored_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "test_set", "scorer_version", "gold_version"],
                name="scoresnapshot_unique",
            )
        ]

    def __str__(self) -> str:
        return (
            f"run {self.submission_id} on {self.test_set_id}, gold v{self.gold_version}"
        )


def _plot_path(instance: Artefact, filename: str) -> str:
    return f"plots/{instance.evaluation.submission_id}/{instance.evaluation.test_set_id}/{filename}"


class Artefact(models.Model):
    """A per-run plot (SVG + PNG) of one evaluation."""

    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="artefacts"
    )
    key = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    svg = models.FileField(upload_to=_plot_path, max_length=500)
    png = models.FileField(upload_to=_plot_path, max_length=500)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "key"], name="artefact_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.key} of evaluation {self.evaluation_id}"


def _task_artefact_path(instance: TaskArtefact, filename: str) -> str:
    return f"plots/testsets/{instance.test_set_id}/{filename}"


class TaskArtefact(models.Model):
    """Task-level results for a test set: comparison plots and analyses
    (e.g. difficulty bins). ``private`` data is organiser-only until gold release."""

    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="task_artefacts"
    )
    key = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    svg = models.FileField(upload_to=_task_artefact_path, max_length=500, blank=True)
    png = models.FileField(upload_to=_task_artefact_path, max_length=500, blank=True)
    public_data = models.JSONField(default=dict, blank=True)
    private_data = models.JSONField(default=dict, blank=True)
    organiser_only = models.BooleanField(default=False)
    #: The runs it draws or lists: a run hidden since keeps it from everyone but the
    #: run's team and the organisers until the worker redraws it.
    runs = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]
        constraints = [
            models.UniqueConstraint(
                fields=["test_set", "key"], name="taskartefact_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.key} of test set {self.test_set_id}"


def sha256_of(fileobj) -> tuple[str, int]:  # noqa: ANN001
    digest = hashlib.sha256()
    size = 0
    for chunk in fileobj.chunks():
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


# --- who organises what, read once per user object ---------------------------------
# Pages ask "is this viewer an organiser?" several times per request (each leak rule
# asks it); the answer for every task is one query, kept on the user object, which
# Django builds afresh for each request. Changes made in this process (adding or
# removing organisers, deleting a task) make every kept answer stale at once.
_organisers_generation = [0]
#: Asked on every signed-in page (precompiled: see evalhub.precompiled).
_ORGANISED = Precompiled(
    lambda user_id: SharedTask.organisers.through.objects.filter(
        user_id=user_id
    ).values_list("sharedtask_id"),
    user_id=-2_000_000_001,
)


def organised_task_ids(user: object) -> frozenset[int]:
    kept = getattr(user, "_evalhub_organised", None)
    if kept is None or kept[0] != _organisers_generation[0]:
        generation = _organisers_generation[0]
        ids = frozenset(
            row[0]
            for row in _ORGANISED.rows(user_id=user.pk)  # type: ignore[attr-defined]
        )
        kept = (generation, ids)
        user._evalhub_organised = kept  # type: ignore[attr-defined]
    return kept[1]


def _organisers_changed(**_: object) -> None:
    _organisers_generation[0] += 1


models.signals.m2m_changed.connect(
    _organisers_changed, sender=SharedTask.organisers.through
)
models.signals.post_delete.connect(_organisers_changed, sender=SharedTask)
