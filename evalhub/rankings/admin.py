from __future__ import annotations

from django.contrib import admin
from django.db import transaction

from evalhub.competitions.admin_scoping import organiser_choices
from evalhub.rankings.models import PhaseRanking


@admin.register(PhaseRanking)
class PhaseRankingAdmin(admin.ModelAdmin):
    list_display = ("phase", "ladder", "ladder_margin", "bootstrap_samples", "seed")
    list_filter = ("ladder",)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):  # noqa: ANN001, ANN003, ANN201
        kwargs = organiser_choices(db_field, request, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change) -> None:  # noqa: ANN001
        super().save_model(request, obj, form, change)
        from evalhub.rankings import jobs

        for pk in obj.phase.test_sets.values_list("pk", flat=True):
            transaction.on_commit(lambda pk=pk: jobs.refresh_statistics.delay(pk))
