"""A phase's tracks: the separate competitions a run enters (TermEval's languages,
BUCC's "closed"/"open", WMT's constrained/unconstrained). A phase without tracks
ranks every run together; a phase with tracks ranks each track apart, and every run
declares exactly one (``Submission.track``, fixed once the run is being scored).

Whether the submission limits count per track or for the phase as a whole is the
phase's ``Phase.limits_per_track``."""

from __future__ import annotations

from django.db import models

from evalhub.competitions.models.phases import Phase


class Track(models.Model):
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="tracks")
    slug = models.SlugField(help_text="Used in addresses, the API and the CLI")
    name = models.CharField(max_length=100)
    description = models.TextField(
        blank=True,
        help_text="Plain text, e.g. 'closed: only the provided training data'",
    )
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "slug"], name="track_slug_unique")
        ]

    def __str__(self) -> str:
        return f"{self.phase} / {self.name}"
