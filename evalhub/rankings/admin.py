from __future__ import annotations

from django.contrib import admin

from evalhub.competitions.admin_scoping import organiser_choices
from evalhub.rankings.models import PhaseRanking


@admin.register(PhaseRanking)
class PhaseRankingAdmin(admin.ModelAdmin):
    """Saving refreshes the phase's statistics and boards (``rankings/receivers``)."""

    list_display = ("phase", "ladder", "ladder_margin", "bootstrap_samples", "seed")
    list_filter = ("ladder",)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):  # noqa: ANN001, ANN003, ANN201
        kwargs = organiser_choices(db_field, request, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
