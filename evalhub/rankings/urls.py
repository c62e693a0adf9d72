from __future__ import annotations

from django.urls import path

from evalhub.rankings import views

app_name = "rankings"

urlpatterns = [
    path(
        "testsets/<int:pk>/significance/",
        views.significance_detail,
        name="significance-detail",
    ),
    path(
        "testsets/<int:pk>/significance.<str:fmt>",
        views.significance_export,
        name="significance-export",
    ),
    path(
        "testsets/<int:pk>/intervals.<str:ext>",
        views.chart_detail,
        name="chart-detail",
    ),
]
