"""Per-phase ranking settings (Ladder, bootstrap) and the cached statistics of a test
set (intervals, pairwise p-values, rank bands, Ladder steps), written by the worker."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from evalhub.competitions.finite import FiniteJSONEncoder
from evalhub.competitions.models import Phase, TestSet, Track
from tasks.common import resampling


class PhaseRanking(models.Model):
    """How a phase's leaderboards are qualified. A phase without a row uses the
    defaults (no Ladder, 1,000 bootstrap samples, seed 0, alpha 0.05)."""

    phase = models.OneToOneField(
        Phase, on_delete=models.CASCADE, related_name="ranking"
    )
    ladder = models.BooleanField(
        default=False,
        help_text="Ladder mode (Blum & Hardt 2015): a team's public score changes only "
        "when a new run beats the shown one by a significant margin. Private test sets "
        "are unaffected.",
    )
    ladder_margin = models.FloatField(
        default=resampling.DEFAULT_LADDER_MARGIN,
        validators=[MinValueValidator(0.0), MaxValueValidator(10.0)],
        help_text="Margin in standard errors of the paired difference (1 = the paper's "
        "parameter-free Ladder).",
    )
    bootstrap_samples = models.PositiveIntegerField(
        default=resampling.DEFAULT_SAMPLES,
        validators=[MinValueValidator(100), MaxValueValidator(20_000)],
    )
    seed = models.PositiveIntegerField(default=resampling.DEFAULT_SEED)
    alpha = models.FloatField(
        default=resampling.DEFAULT_ALPHA,
        validators=[MinValueValidator(0.001), MaxValueValidator(0.5)],
        help_text="Significance level of the rank bands.",
    )

    def __str__(self) -> str:
        return f"ranking of {self.phase}"

    @classmethod
    def for_phase(cls, phase: Phase) -> PhaseRanking:
        found = cls.objects.filter(phase=phase).first()
        return found if found is not None else cls(phase=phase)


def _chart_path(instance: TestSetStatistics, filename: str) -> str:
    return f"plots/testsets/{instance.test_set_id}/rankings/{filename}"


class TestSetStatistics(models.Model):
    """Computed on the worker after each scored run; read by leaderboards. ``data``
    holds per-run intervals, the Ladder steps (organiser-only: they include the
    scores of unreleased runs) and the pairwise matrix over the leaderboard's runs."""

    test_set = models.OneToOneField(
        TestSet, on_delete=models.CASCADE, related_name="statistics"
    )
    signature = models.CharField(max_length=200, blank=True)
    data = models.JSONField(default=dict, blank=True, encoder=FiniteJSONEncoder)
    chart_svg = models.FileField(upload_to=_chart_path, max_length=500, blank=True)
    chart_png = models.FileField(upload_to=_chart_path, max_length=500, blank=True)
    chart_pdf = models.FileField(upload_to=_chart_path, max_length=500, blank=True)
    #: The chart drawn for a phone's column (empty: drawn before it existed).
    chart_svg_narrow = models.FileField(
        upload_to=_chart_path, max_length=500, blank=True
    )
    updated_at = models.DateTimeField(auto_now=True)

    __test__ = False

    class Meta:
        verbose_name_plural = "test set statistics"

    def __str__(self) -> str:
        return f"statistics of {self.test_set}"


def _track_chart_path(instance: TrackChart, filename: str) -> str:
    test_set = instance.statistics.test_set_id
    return f"plots/testsets/{test_set}/rankings/track-{instance.track_id}/{filename}"


class TrackChart(models.Model):
    """The interval chart of one track's board, drawn with its statistics (the
    statistics' own chart draws the board of every track together)."""

    statistics = models.ForeignKey(
        TestSetStatistics, on_delete=models.CASCADE, related_name="track_charts"
    )
    track = models.ForeignKey(Track, on_delete=models.CASCADE, related_name="+")
    chart_svg = models.FileField(upload_to=_track_chart_path, max_length=500)
    chart_png = models.FileField(upload_to=_track_chart_path, max_length=500)
    chart_pdf = models.FileField(
        upload_to=_track_chart_path, max_length=500, blank=True
    )
    chart_svg_narrow = models.FileField(
        upload_to=_track_chart_path, max_length=500, blank=True
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["statistics", "track"], name="trackchart_unique"
            )
        ]

    def __str__(self) -> str:
        return f"interval chart of track {self.track_id} of {self.statistics}"
