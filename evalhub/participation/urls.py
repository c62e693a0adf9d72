from __future__ import annotations

from django.urls import path

from evalhub.participation import views

app_name = "participation"

urlpatterns = [
    path("tasks/<slug:slug>/terms/", views.terms_page, name="terms"),
    path("account/profile/", views.profile, name="profile"),
]

#: Pages of the organiser console that participation provides; the project's URLs
#: (``evalhub/urls.py``) serve them in the console's namespace, beside its own.
console_urlpatterns = [
    path("tasks/<slug:slug>/dashboard/terms/", views.data_terms, name="data-terms"),
    path(
        "tasks/<slug:slug>/dashboard/participants/",
        views.participants,
        name="participants",
    ),
    path(
        "tasks/<slug:slug>/dashboard/participants.csv",
        views.participants_export,
        name="participants-export",
    ),
]
