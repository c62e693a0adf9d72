"""Per-phase ranking settings (Ladder, bootstrap) and the cached statistics of a test
set (intervals, pairwise p-values, rank bands, Ladder steps), written by the worker."""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from evalhub.competitions.finite import FiniteJSONEncoder
from evalhub.competitions.models import Phase, Submission, TestSet, Track
from tasks.common import resampling


class PhaseRanking(models.Model):
    """How a phase's leaderboards are ranked and qualified. A phase without a row
    uses the defaults (the task type's metric and columns, the mean over test sets,
    no Ladder, 1,000 bootstrap samples, seed 0, alpha 0.05)."""

    class Overall(models.TextChoices):
        MEAN = "mean", "Mean of the ranking metric"
        AVERAGE_RANK = "average_rank", "Average rank"

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
    #: The metric that ranks (one the task type declares rankable); "" for the
    #: task type's primary metric.
    metric = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="The metric that ranks the boards, the overall ranking and the "
        "Ladder (empty: the task type's).",
    )
    #: The board's columns in order (metric keys); empty for the task type's.
    columns = models.JSONField(default=list, blank=True)
    #: How the overall ranking combines the test sets ("" is the mean too: a
    #: form that does not send it keeps the default).
    overall = models.CharField(
        max_length=20, choices=Overall.choices, default=Overall.MEAN, blank=True
    )

    def __str__(self) -> str:
        return f"ranking of {self.phase}"

    def clean(self) -> None:
        """The metric and columns the task type allows (the page, the bundle, the
        organiser API and the admin refuse the same)."""
        super().clean()
        try:
            task_type = self.phase.task.type
        except ObjectDoesNotExist:
            return  # no phase yet (a form's missing one, an archive being read)
        problems: dict[str, list[str]] = {}
        rankable = task_type.rankable_metrics()
        if self.metric and self.metric not in rankable:
            problems["metric"] = [
                f"{self.metric!r} is not a metric this task type ranks by; "
                f"rankable: {', '.join(rankable)}"
            ]
        known = [m.key for m in task_type.metrics]
        columns = self.columns
        if not isinstance(columns, list) or not all(
            isinstance(c, str) for c in columns
        ):
            problems["columns"] = ["must be a list of metric keys"]
        else:
            unknown = [c for c in columns if c not in known]
            if unknown:
                problems["columns"] = [
                    f"unknown metric {', '.join(map(repr, unknown))}; "
                    f"known: {', '.join(known)}"
                ]
            elif len(set(columns)) != len(columns):
                problems["columns"] = ["a metric is listed twice"]
        if problems:
            raise ValidationError(problems)

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
    #: While a refresh computes many runs' shares (new gold, new settings): how many
    #: of how many are done (the console dashboard shows it); 0 of 0 otherwise.
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)

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


class RunStatistics(models.Model):
    """One run's share of the statistics of a test set, kept so that a new run only
    adds its own (``services/runstats.py``): its interval, its metric on each shared
    resample, the sums each swap trial moves, its per-item losses (the Ladder).
    Valid while ``key`` (gold and scorer version, when the run was scored, samples,
    seed) still holds; recomputed otherwise."""

    test_set = models.ForeignKey(TestSet, on_delete=models.CASCADE, related_name="+")
    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(max_length=200)
    #: Fingerprint of the gold items and formula; "" when the run cannot take part.
    items = models.CharField(max_length=64, blank=True)
    value = models.FloatField(null=True)
    interval = models.JSONField(null=True, encoder=FiniteJSONEncoder)
    sums = models.BinaryField(default=b"")
    boot = models.BinaryField(default=b"")
    swaps = models.BinaryField(default=b"")
    losses = models.BinaryField(default=b"")
    #: Its pairs with every other run of the same items are stored.
    paired = models.BooleanField(default=False)

    __test__ = False

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["test_set", "submission"], name="run_statistics_unique"
            )
        ]

    def __str__(self) -> str:
        return f"statistics of run {self.submission_id} on {self.test_set_id}"


class PairStatistics(models.Model):
    """Paired bootstrap and approximate randomisation between two runs on one test
    set (``run_a`` < ``run_b``; ``delta`` = a - b), under the gold version and
    settings in ``key``; replaced when either run's share is recomputed under the
    same key; those of another key are kept (the boards still show them) until a
    refresh under the new key is complete."""

    test_set = models.ForeignKey(TestSet, on_delete=models.CASCADE, related_name="+")
    run_a = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    run_b = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    delta = models.FloatField()
    p_bootstrap = models.FloatField()
    p_randomisation = models.FloatField()

    __test__ = False

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["test_set", "run_a", "run_b", "key"],
                name="pair_statistics_unique",
            )
        ]

    def __str__(self) -> str:
        return f"runs {self.run_a_id} and {self.run_b_id} on {self.test_set_id}"
