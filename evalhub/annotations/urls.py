from __future__ import annotations

from django.urls import path

from evalhub.annotations import views

app_name = "annotations"

urlpatterns = [
    path("", views.annotation_list, name="annotation-list"),
    path("testsets/<int:pk>/", views.annotation_detail, name="annotation-detail"),
    path(
        "testsets/<int:pk>/scores/", views.annotation_scores, name="annotation-scores"
    ),
    path("testsets/<int:pk>/tag/", views.judgement_create, name="judgement-create"),
    path("testsets/<int:pk>/undo/", views.judgement_undo, name="judgement-undo"),
    path(
        "tasks/<slug:slug>/probe-set/",
        views.probe_set_build,
        name="probe-set-build",
    ),
    path(
        "tasks/<slug:slug>/probe-set/save/",
        views.probe_set_save,
        name="probe-set-save",
    ),
    path(
        "tasks/<slug:slug>/annotators/",
        views.annotator_list,
        name="annotator-list",
    ),
    path(
        "tasks/<slug:slug>/annotators/<int:pk>/remove/",
        views.annotator_remove,
        name="annotator-remove",
    ),
]
