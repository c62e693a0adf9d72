from __future__ import annotations

from django.contrib import admin

from evalhub.rankings.models import PhaseRanking


@admin.register(PhaseRanking)
class PhaseRankingAdmin(admin.ModelAdmin):
    """Saving refreshes the phase's statistics and boards (``rankings/receivers``)."""

    list_display = ("phase", "ladder", "ladder_margin", "bootstrap_samples", "seed")
    list_filter = ("ladder",)
