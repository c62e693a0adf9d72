"""The origins a task's organisers allow to frame its boards' embeds
(``services/origins.py`` validates them and builds the header)."""

from __future__ import annotations

from django.db import models

from evalhub.competitions.models import SharedTask


class EmbedSettings(models.Model):
    task = models.OneToOneField(
        SharedTask,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="embed_settings",
    )
    #: One origin a line (``scheme://host[:port]``), as ``origins.parse`` keeps
    #: them; empty: no page may frame the embeds.
    origins = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "embed settings"
        verbose_name_plural = "embed settings"

    def __str__(self) -> str:
        return f"embeds of task {self.task_id}"
