from __future__ import annotations

from django.urls import path

from evalhub.factsheets import views

app_name = "factsheets"

urlpatterns = [
    path(
        "tasks/<slug:slug>/dashboard/factsheet/",
        views.question_list,
        name="question-list",
    ),
    path(
        "tasks/<slug:slug>/dashboard/factsheet/<int:pk>/",
        views.question_edit,
        name="question-edit",
    ),
    path(
        "tasks/<slug:slug>/dashboard/factsheet/<int:pk>/delete/",
        views.question_delete,
        name="question-delete",
    ),
    path(
        "tasks/<slug:slug>/dashboard/factsheet/<int:pk>/move/",
        views.question_move,
        name="question-move",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/factsheets/",
        views.team_sheets,
        name="team-sheets",
    ),
    path("runs/<int:pk>/factsheet/", views.run_sheet, name="run-sheet"),
    path("runs/<int:pk>/paper/", views.run_paper, name="run-paper"),
]
