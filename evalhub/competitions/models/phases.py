"""A task's phases and their test sets: public inputs and hidden gold files."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from evalhub.competitions.models.tasks import SharedTask


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
    #: With tracks (``Track``): the daily and total limits count a team's runs in
    #: each track apart (True) or all its runs in the phase together (False).
    limits_per_track = models.BooleanField(
        default=False,
        help_text="With tracks: the limits apply to each track apart (unticked: "
        "shared by all tracks of the phase)",
    )
    #: Evaluation after the campaign (``services/after_campaign.py``): its runs are
    #: scored and ranked on a board of their own, never in the official results
    #: (the home page's leader and counts, the overview-paper package).
    after_campaign = models.BooleanField(
        default=False,
        help_text="Open for evaluation after the campaign: ranked apart, never in "
        "the official results",
    )
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "opens_at"]
        constraints = [
            models.UniqueConstraint(fields=["task", "slug"], name="phase_slug_unique"),
            # One evaluation after the campaign per task, whoever opens it at once.
            models.UniqueConstraint(
                fields=["task"],
                condition=models.Q(after_campaign=True),
                name="phase_one_after_campaign",
            ),
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
    #: Opt-in: beat reveals the private scores once the phase has closed
    #: (``services/data/datasets.reveal_due``), announced like a reveal by hand.
    reveal_at_phase_end = models.BooleanField(
        default=False, help_text="Reveal the private scores when the phase closes"
    )
    gold_version = models.PositiveIntegerField(
        default=0,
        help_text="Version of the data the scores rest on: bumped by any change of "
        "any file of the test set (inputs and gold)",
    )
    order = models.PositiveIntegerField(default=0)
    #: The official test set this one copies (the evaluation after the campaign,
    #: ``services/after_campaign.py``): its Ladder continues that test set's, each
    #: team's history starting with its campaign runs.
    copied_from = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="copies",
        editable=False,
    )

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


class BoardVersion(models.Model):
    """The version of a test set's boards, which their caches are keyed on: bumped in
    one ``UPDATE ... SET version = version + 1`` once a change of what they show has
    committed (``services/boards/boardcache.py``). A row of its own rather than a column of
    ``TestSet``, so that saving a test set read before a bump (a form, the admin)
    never writes an old version back; created by the first bump (none: version 0)."""

    test_set = models.OneToOneField(
        TestSet,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="board_version",
    )
    version = models.PositiveBigIntegerField(default=0)
    #: The version of the last change that took something off the boards (a run
    #: hidden, a team renamed, a Ladder decision): a board drawn at an earlier
    #: version is never served again, not even as the fragment's stale fallback.
    retracted = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.test_set_id}: v{self.version}"


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
        # Inputs before gold, by role: the same on every page and API answer,
        # whatever order an upload or an archive import stored them in.
        ordering = ["private", "role"]
        constraints = [
            models.UniqueConstraint(
                fields=["test_set", "role"], name="testsetfile_role_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.test_set}: {self.role}"
