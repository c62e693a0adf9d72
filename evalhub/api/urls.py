from __future__ import annotations

from django.urls import path

from evalhub.api import views
from evalhub.api.api import api

app_name = "api"

urlpatterns = [
    path("api/", api.urls),
    path("account/tokens/", views.token_list, name="token-list"),
    path("account/tokens/<int:pk>/revoke/", views.token_revoke, name="token-revoke"),
    path(
        "exports/tasks/<slug:slug>/<slug:phase>/leaderboard.<str:fmt>",
        views.leaderboard_export,
        name="leaderboard-export",
    ),
    path(
        "exports/tasks/<slug:slug>/<slug:phase>/runs.zip",
        views.runs_export,
        name="runs-export",
    ),
    path(
        "exports/testsets/<int:pk>/figures/<slug:key>.<str:fmt>",
        views.figure_export,
        name="figure-export",
    ),
]
