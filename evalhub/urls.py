from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("evalhub.accounts.urls")),
    path("", include("evalhub.api.urls")),
    path("annotate/", include("evalhub.annotations.urls")),
    path("rankings/", include("evalhub.rankings.urls")),
    path("teams/", include("evalhub.teams.urls")),
    path("notifications/", include("evalhub.notifications.urls")),
    path("", include("evalhub.competitions.urls")),
]
