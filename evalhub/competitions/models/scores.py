"""What scoring a run on a test set produced: the evaluation, one row per metric,
and the scores kept from before a rescore."""

from __future__ import annotations

import sys

from django.db import models
from django.db.models import Q

from evalhub.competitions.finite import FiniteJSONEncoder, check_number
from evalhub.competitions.models.phases import TestSet
from evalhub.competitions.models.submissions import Submission


class Evaluation(models.Model):
    """The result of scoring one submission on one test set."""

    class Figures(models.TextChoices):
        """The run's own figures (``services/runs/run_figures.py``): drawn by a job
        of their own after the score is stored."""

        PENDING = "pending", "waiting for their job"
        DRAWING = "drawing", "being drawn"
        DRAWN = "drawn", "drawn"

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="evaluations"
    )
    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="evaluations"
    )
    scorer_version = models.CharField(max_length=32)
    gold_version = models.PositiveIntegerField()
    payload = models.JSONField(default=dict, encoder=FiniteJSONEncoder)
    curves = models.JSONField(default=list, encoder=FiniteJSONEncoder)
    warnings = models.JSONField(default=list)
    detail = models.JSONField(
        default=dict,
        encoder=FiniteJSONEncoder,
        help_text="Per-item outcomes: organiser-only until gold release",
    )
    created_at = models.DateTimeField(auto_now=True)
    figures = models.CharField(
        max_length=8, choices=Figures.choices, default=Figures.DRAWN
    )
    #: Names the stored results the figures are to be drawn from: a new score (or
    #: the sweeper taking a drawing over) changes it, so an older job is a no-op.
    figures_key = models.CharField(max_length=32, blank=True)
    #: When ``figures`` last changed (the sweeper re-sends jobs lost meanwhile).
    figures_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["figures", "figures_at"])]
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
            ),
            # Bounded by the largest finite double, not by infinity (SQLite has no
            # literal for it); PostgreSQL sorts NaN above every number.
            models.CheckConstraint(
                condition=Q(value__isnull=True)
                | Q(value__gte=-sys.float_info.max, value__lte=sys.float_info.max),
                name="score_value_finite",
            ),
        ]
        indexes = [models.Index(fields=["test_set", "metric", "value"])]

    def __str__(self) -> str:
        # No value: a private test set's scores must not show up in lists or logs.
        return (
            f"{self.metric} of run {self.submission_id} on test set {self.test_set_id}"
        )

    def save(self, *args: object, **kwargs: object) -> None:
        check_number(self.value, f"{self.metric} of run {self.submission_id}")
        super().save(*args, **kwargs)  # type: ignore[arg-type]


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
    metrics = models.JSONField(default=dict, encoder=FiniteJSONEncoder)
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
