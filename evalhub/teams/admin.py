from __future__ import annotations

from django.contrib import admin

from evalhub.teams.models import Invitation


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["team", "invitee", "inviter", "status", "created_at", "expires_at"]
    list_filter = ["status"]
    readonly_fields = ["token", "accepted_by", "decided_at"]
    raw_id_fields = ["team", "inviter", "invitee"]

    def has_module_permission(self, request) -> bool:  # noqa: ANN001
        return request.user.is_superuser

    def has_view_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return request.user.is_superuser
