from __future__ import annotations

from django.urls import path

from evalhub.embeds import views

app_name = "embeds"

urlpatterns = [
    path(
        "tasks/<slug:slug>/<slug:phase>/embed/<int:test_set>/",
        views.board_embed,
        name="board-embed",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/embed/overall/",
        views.overall_embed,
        name="overall-embed",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/badge/<int:test_set>.svg",
        views.board_badge,
        name="board-badge",
    ),
    path(
        "tasks/<slug:slug>/<slug:phase>/badge/overall.svg",
        views.overall_badge,
        name="overall-badge",
    ),
]

#: The console's page of the embeds; the project's URLs (``evalhub/urls.py``)
#: serve it in the console's namespace, beside the console's own.
console_urlpatterns = [
    path(
        "tasks/<slug:slug>/dashboard/embeds/",
        views.embed_settings,
        name="embeds",
    ),
]
