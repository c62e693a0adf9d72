"""Plots and analyses: per run (of one evaluation) and per test set."""

from __future__ import annotations

from django.db import models

from evalhub.competitions.finite import FiniteJSONEncoder
from evalhub.competitions.models.phases import TestSet
from evalhub.competitions.models.scores import Evaluation
from evalhub.competitions.models.tracks import Track


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
    #: The same figure drawn for a phone's column (``tasks.common.plotting``);
    #: empty for figures drawn before it existed (the SVG is shown instead).
    svg_narrow = models.FileField(upload_to=_plot_path, max_length=500, blank=True)

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
    track = "" if instance.track_id is None else f"track-{instance.track_id}/"
    return f"plots/testsets/{instance.test_set_id}/{track}{filename}"


class TaskArtefact(models.Model):
    """Task-level results for a test set: comparison plots and analyses
    (e.g. difficulty bins). ``private`` data is organiser-only until gold release.
    Drawn per board: of every track together (``track`` None; a phase without
    tracks has only these), and of each track of the phase from its own runs."""

    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="task_artefacts"
    )
    track = models.ForeignKey(
        Track,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="task_artefacts",
    )
    key = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    svg = models.FileField(upload_to=_task_artefact_path, max_length=500, blank=True)
    png = models.FileField(upload_to=_task_artefact_path, max_length=500, blank=True)
    #: Drawn with the SVG and PNG for an analysis' figures (comparison figures are
    #: drawn again as PDF on request, see ``services/boards/figure_pdfs.py``).
    pdf = models.FileField(upload_to=_task_artefact_path, max_length=500, blank=True)
    #: The figure drawn for a phone's column (empty: drawn before it existed).
    svg_narrow = models.FileField(
        upload_to=_task_artefact_path, max_length=500, blank=True
    )
    public_data = models.JSONField(default=dict, blank=True, encoder=FiniteJSONEncoder)
    private_data = models.JSONField(default=dict, blank=True, encoder=FiniteJSONEncoder)
    organiser_only = models.BooleanField(default=False)
    #: The runs it draws or lists: a run hidden since keeps it from everyone but the
    #: run's team and the organisers until the worker redraws it.
    runs = models.JSONField(default=list, blank=True)
    #: A digest of what it was drawn from (``analyses.inputs_digest``): the next
    #: refresh draws its section again only if that changed ("": drawn before).
    inputs_digest = models.CharField(max_length=64, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]
        constraints = [
            models.UniqueConstraint(
                fields=["test_set", "key"],
                condition=models.Q(track__isnull=True),
                name="taskartefact_unique",
            ),
            models.UniqueConstraint(
                fields=["test_set", "track", "key"],
                condition=models.Q(track__isnull=False),
                name="taskartefact_track_unique",
            ),
        ]

    def __str__(self) -> str:
        track = "" if self.track_id is None else f", track {self.track_id}"
        return f"{self.key} of test set {self.test_set_id}{track}"
