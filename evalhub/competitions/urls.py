from __future__ import annotations

from django.urls import path

from evalhub.competitions import views

app_name = "competitions"

urlpatterns = [
    path("", views.task_list, name="task-list"),
    path("tasks/<slug:slug>/", views.task_detail, name="task-detail"),
    path("tasks/<slug:slug>/register/", views.task_register, name="task-register"),
    path("tasks/<slug:slug>/dashboard/", views.task_dashboard, name="task-dashboard"),
    path("tasks/<slug:slug>/bundle.zip", views.bundle_export, name="bundle-export"),
    path("tasks/<slug:slug>/rescoring/", views.task_rescoring, name="task-rescoring"),
    path(
        "tasks/<slug:slug>/registrations/<int:pk>/decide/",
        views.registration_decide,
        name="registration-decide",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/baseline/",
        views.baseline_create,
        name="baseline-create",
    ),
    path("new/bundle/", views.bundle_import, name="bundle-import"),
    path("tasks/<slug:slug>/<slug:phase>/submit/", views.run_submit, name="run-submit"),
    path(
        "tasks/<slug:slug>/<slug:phase>/leaderboard/",
        views.phase_leaderboard,
        name="leaderboard-detail",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/leaderboard.json",
        views.leaderboard_json,
        name="leaderboard-json",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/ranking/",
        views.phase_ranking,
        name="ranking-detail",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/ranking.<str:ext>",
        views.phase_ranking_plot,
        name="ranking-plot",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/compare/",
        views.runs_compare,
        name="runs-compare",
    ),
    path("runs/<int:pk>/", views.run_detail, name="run-detail"),
    path("runs/<int:pk>/final/", views.run_final, name="run-final"),
    path("runs/<int:pk>/visibility/", views.run_visibility, name="run-visibility"),
    path("runs/<int:pk>/status/", views.run_status, name="run-status"),
    path("runs/<int:pk>/file/", views.run_file, name="run-file"),
    path("runs/<int:pk>/rescore/", views.run_rescore, name="run-rescore"),
    path(
        "runs/<int:pk>/items/<int:test_set>/",
        views.run_item_detail,
        name="run-item-detail",
    ),
    path(
        "runs/<int:pk>/plots/<int:artefact>.<str:ext>", views.run_plot, name="run-plot"
    ),
    path(
        "testsets/<int:pk>/plots/<slug:key>.<str:ext>",
        views.test_set_plot,
        name="testset-plot",
    ),
    path(
        "testsets/<int:pk>/files/<slug:role>/", views.test_set_file, name="testset-file"
    ),
]
