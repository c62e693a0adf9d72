"""The pages of messages to teams, served in the console's namespace by the
project's ``evalhub/urls.py`` (``console:messages``, ...), as console pages."""

from __future__ import annotations

from django.urls import path

from evalhub.mailings import views

_DASH = "tasks/<slug:slug>/dashboard/messages/"

console_urlpatterns = [
    path(_DASH, views.message_list, name="messages"),
    path(f"{_DASH}new/", views.message_create, name="message-create"),
    path(f"{_DASH}<int:pk>/", views.message_detail, name="message-detail"),
    path(f"{_DASH}<int:pk>/progress/", views.message_progress, name="message-progress"),
]
