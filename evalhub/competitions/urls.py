from __future__ import annotations

from django.urls import path

from evalhub.competitions.views import (
    boards,
    figures,
    files,
    organisers,
    runs,
    staff,
    submitting,
    tasks,
)

app_name = "competitions"

urlpatterns = [
    path("", tasks.task_list, name="task-list"),
    path("tasks/<slug:slug>/", tasks.task_detail, name="task-detail"),
    path("tasks/<slug:slug>/register/", tasks.task_register, name="task-register"),
    path("tasks/<slug:slug>/my-runs/", tasks.own_run_list, name="own-run-list"),
    path(
        "tasks/<slug:slug>/dashboard/", organisers.task_dashboard, name="task-dashboard"
    ),
    path(
        "tasks/<slug:slug>/bundle.zip", organisers.bundle_export, name="bundle-export"
    ),
    path(
        "tasks/<slug:slug>/rescoring/", organisers.task_rescoring, name="task-rescoring"
    ),
    path(
        "tasks/<slug:slug>/registrations/<int:pk>/decide/",
        organisers.registration_decide,
        name="registration-decide",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/baseline/",
        submitting.baseline_create,
        name="baseline-create",
    ),
    path("new/bundle/", organisers.bundle_import, name="bundle-import"),
    path("staff/creators/", staff.creator_list, name="creator-list"),
    path(
        "tasks/<slug:slug>/<slug:phase>/submit/",
        submitting.run_submit,
        name="run-submit",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/leaderboard/",
        boards.phase_leaderboard,
        name="leaderboard-detail",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/leaderboard.json",
        boards.leaderboard_json,
        name="leaderboard-json",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/ranking/",
        boards.phase_ranking,
        name="ranking-detail",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/ranking.<str:ext>",
        boards.phase_ranking_plot,
        name="ranking-plot",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/compare/",
        boards.runs_compare,
        name="runs-compare",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/compare/figures/<int:test_set>/<slug:key>.<str:ext>",
        boards.runs_compare_figure,
        name="runs-compare-figure",
    ),
    path("runs/<int:pk>/", runs.run_detail, name="run-detail"),
    path("runs/<int:pk>/final/", runs.run_final, name="run-final"),
    path("runs/<int:pk>/visibility/", runs.run_visibility, name="run-visibility"),
    path("runs/<int:pk>/status/", runs.run_status, name="run-status"),
    path("runs/<int:pk>/file/", runs.run_file, name="run-file"),
    path("runs/<int:pk>/rescore/", runs.run_rescore, name="run-rescore"),
    path(
        "runs/<int:pk>/items/<int:test_set>/",
        runs.run_item_detail,
        name="run-item-detail",
    ),
    path(
        "runs/<int:pk>/plots/<int:artefact>.<str:ext>", runs.run_plot, name="run-plot"
    ),
    path(
        "testsets/<int:pk>/plots/<slug:key>.<str:ext>",
        files.test_set_plot,
        name="testset-plot",
    ),
    path(
        "testsets/<int:pk>/plots/<slug:key>/data.csv",
        figures.test_set_plot_data,
        name="testset-plot-data",
    ),  # fmt: skip
    path(
        "testsets/<int:pk>/files/<slug:role>/", files.test_set_file, name="testset-file"
    ),
]
