"""Annotators' judgements of MT probe translations (Volk 1997, section 2.3).

A judgement is stored for (test set, probe item, normalised translation): the
judgement-memory key, so one judgement covers every system that produced the same
translation. Rows are never updated or deleted: a new judgement supersedes older
ones, and undo retracts a row (``retracted_at``), so who tagged what and when is kept.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from evalhub.competitions.models import SharedTask, TestSet
from tasks.mt_lexicon_probe.tags import Tag


class Judgement(models.Model):
    class TagChoice(models.TextChoices):
        UNKNOWN = Tag.UNKNOWN.value, Tag.UNKNOWN.label
        WRONG = Tag.WRONG.value, Tag.WRONG.label
        MISSING = Tag.MISSING.value, Tag.MISSING.label
        WRONG_FORM = Tag.WRONG_FORM.value, Tag.WRONG_FORM.label
        SEGMENTED = Tag.SEGMENTED.value, Tag.SEGMENTED.label
        INTERFIX = Tag.INTERFIX.value, Tag.INTERFIX.label
        WRONG_DETERMINER = Tag.WRONG_DETERMINER.value, Tag.WRONG_DETERMINER.label
        CORRECT = Tag.CORRECT.value, Tag.CORRECT.label

    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="judgements"
    )
    probe_id = models.CharField(max_length=200)
    translation_key = models.TextField(
        help_text="Normalised translation (the judgement-memory key)"
    )
    translation = models.TextField(help_text="The translation as the annotator saw it")
    tag = models.CharField(max_length=4, choices=TagChoice.choices)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgements"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    retracted_at = models.DateTimeField(null=True, blank=True)
    retracted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(fields=["test_set", "probe_id", "translation_key"]),
            models.Index(fields=["test_set", "annotator", "retracted_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.probe_id}: {self.tag} ({self.annotator_id})"

    @property
    def is_active(self) -> bool:
        return self.retracted_at is None

    @property
    def tag_enum(self) -> Tag:
        return Tag(self.tag)

    @classmethod
    def retract(cls, pk: int, *, by: object) -> bool:
        """Undo one judgement; exactly one caller wins."""
        return (
            cls.objects.filter(pk=pk, retracted_at__isnull=True).update(
                retracted_at=timezone.now(), retracted_by=by
            )
            == 1
        )


class Annotator(models.Model):
    """A user who tags the probe items of one mt_lexicon_probe task without being
    its organiser: they see probe sentences, translations and proposed tags, never
    the gold files, hidden scores, the dashboard or the admin
    (:mod:`evalhub.annotations.services.access`)."""

    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="annotators"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="annotator_roles",
    )
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    added_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["task", "user__username"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "user"], name="annotator_task_user_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id} annotates {self.task_id}"
