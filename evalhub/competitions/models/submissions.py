"""A run: the ``Submission`` row is the truth about it.

Its status has one writer, ``services/runs/lifecycle.py`` (the allowed transitions and
their invariants); pages read the row, never Celery's result store.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models.phases import Phase
from evalhub.competitions.models.teams import Team
from evalhub.competitions.models.tracks import Track


class TrackFixed(Exception):
    """A run's track cannot change once it is being scored (or later)."""


def _run_path(instance: Submission, filename: str) -> str:
    return f"tasks/{instance.phase.task_id}/runs/{instance.team_id}/{filename}"


class Submission(models.Model):
    class Status(models.TextChoices):
        #: A large file waits for its full check by a worker (services/runs/validation.py).
        VALIDATING = "validating", "Being checked"
        QUEUED = "queued", "Queued"
        SCORING = "scoring", "Scoring"
        SCORED = "scored", "Scored"
        FAILED = "failed", "Failed"
        REJECTED = "rejected", "Rejected"

    #: States in which nothing happens to the run until someone acts (a rescore may
    #: still queue a scored or failed run again). "Final" is kept for a team's chosen
    #: final runs (``final_selected``).
    TERMINAL_STATES = frozenset({Status.SCORED, Status.FAILED, Status.REJECTED})

    class Failure(models.TextChoices):
        FORMAT = "format", "Format error"
        SCORER = "scorer", "Scorer error"
        TIMEOUT = "timeout", "Time limit exceeded"
        INFRASTRUCTURE = "infrastructure", "Infrastructure error"

    phase = models.ForeignKey(
        Phase, on_delete=models.CASCADE, related_name="submissions"
    )
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="submissions")
    #: The track the run competes in: None exactly when its phase has no tracks.
    #: Fixed once scoring starts (``change_track``; ``save`` refuses a change).
    #: A track cannot be deleted while a run uses it.
    track = models.ForeignKey(
        Track,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="submissions",
    )
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
    #: The organisers hid the run (the console's runs page): a decision of theirs,
    #: recorded, that only they reverse; the team sees it and cannot show the run
    #: (``services/runs/hiding.py``). While set, ``hidden`` is true (a constraint).
    hidden_by_organisers_at = models.DateTimeField(null=True, blank=True)
    hidden_by_organisers_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    #: Chosen by its team as one of the phase's final runs (see services/runs/finals.py).
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
        constraints = [
            # A run the organisers hid is hidden, whoever writes the row.
            models.CheckConstraint(
                condition=Q(hidden_by_organisers_at__isnull=True) | Q(hidden=True),
                name="submission_organiser_hidden_is_hidden",
            )
        ]

    def __str__(self) -> str:
        return f"run {self.pk} ({self.team}, {self.method_name})"

    def save(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        """Refuses (``TrackFixed``) to store a changed track of a run that is
        being scored or was scored, failed or rejected, whoever saves it (admin,
        shell, a service): one query, against the stored row."""
        if not self._state.adding and self.pk is not None:
            fixed = (
                type(self)
                .objects.filter(pk=self.pk)
                .exclude(status__in=self.TRACK_CHANGEABLE)
                .exclude(track_id=self.track_id)
                .exists()
            )
            if fixed:
                raise TrackFixed(
                    f"Run {self.pk} is {self.get_status_display().lower()}: its "
                    "track can no longer change."
                )
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("competitions:run-detail", args=[self.pk])

    @property
    def hidden_by_organisers(self) -> bool:
        return self.hidden_by_organisers_at is not None

    @property
    def is_terminal(self) -> bool:
        return self.status in self.TERMINAL_STATES

    #: States in which the run's track may still change (nothing scored yet).
    TRACK_CHANGEABLE = frozenset({Status.VALIDATING, Status.QUEUED})

    @classmethod
    def change_track(cls, pk: int, track_id: int | None) -> bool:
        """Move a run that is not being scored yet to another track of its phase
        (atomic: False, and nothing changed, once scoring has started)."""
        return (
            cls.objects.filter(pk=pk, status__in=cls.TRACK_CHANGEABLE).update(
                track_id=track_id
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
