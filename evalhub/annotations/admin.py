from __future__ import annotations

from django.contrib import admin

from evalhub.annotations.models import Judgement
from evalhub.competitions.admin_scoping import ScopedListFilterMixin


@admin.register(Judgement)
class JudgementAdmin(ScopedListFilterMixin, admin.ModelAdmin):
    list_display = (
        "probe_id",
        "translation",
        "tag",
        "annotator",
        "created_at",
        "retracted_at",
    )
    list_filter = ("tag", "test_set")
    search_fields = ("probe_id", "translation_key")
    readonly_fields = [f.name for f in Judgement._meta.fields]

    def has_add_permission(self, request) -> bool:  # noqa: ANN001
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return False
