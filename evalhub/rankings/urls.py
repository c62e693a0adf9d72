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
        "testsets/<int:pk>/compare/<int:a>/<int:b>.json",
        views.comparison_detail,
        name="comparison-detail",
    ),
    path(
        "testsets/<int:pk>/intervals.<str:ext>",
        views.chart_detail,
        name="chart-detail",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/package.zip",
        views.package_download,
        name="package",
    ),
]

#: Pages of the organiser console that rankings provides; the project's URLs
#: (``evalhub/urls.py``) serve them in the console's namespace, beside its own.
console_urlpatterns = [
    path(
        "tasks/<slug:slug>/dashboard/phases/<slug:phase>/ranking/",
        views.phase_ranking,
        name="ranking",
    ),
]
