from __future__ import annotations

from django.urls import path

from evalhub.console.views import (
    after_campaign,
    archive,
    gold,
    people,
    phases,
    preview,
    runs,
    tasks,
    testsets,
)
from evalhub.console.views import tracks as track_views

app_name = "console"

DASH = "tasks/<slug:slug>/dashboard/"

# ---- task set-up, phases, people and previews (views/tasks.py, phases.py, ...) -----
urlpatterns = [
    path("new/task/", tasks.task_create, name="task-create"),
    path("new/task/preview/", tasks.markdown_preview, name="markdown-preview"),
    path(f"{DASH}settings/", tasks.task_settings, name="task-settings"),
    path(f"{DASH}archive/", archive.archive_export, name="archive-export"),
    path(f"{DASH}archive/status/", archive.archive_status, name="archive-status"),
    path(f"{DASH}archive.zip", archive.task_archive, name="task-archive"),
    path(f"{DASH}phases/", phases.phase_list, name="phases"),
    path(f"{DASH}phases/new/", phases.phase_create, name="phase-create"),
    path(f"{DASH}phases/<slug:phase>/", phases.phase_edit, name="phase-edit"),
    path(f"{DASH}phases/<slug:phase>/move/", phases.phase_move, name="phase-move"),
    path(
        f"{DASH}after-the-campaign/",
        after_campaign.after_campaign_page,
        name="after-campaign",
    ),
    path(
        f"{DASH}after-the-campaign/close/",
        after_campaign.after_campaign_close,
        name="after-campaign-close",
    ),
    path(f"{DASH}organisers/", people.organisers, name="organisers"),
    path(
        f"{DASH}organisers/<int:user_id>/remove/",
        people.organiser_remove,
        name="organiser-remove",
    ),
    path(f"{DASH}organisers/owner/", people.owner_hand_over, name="owner-hand-over"),
    path(f"{DASH}announcements/", people.announcements, name="announcements"),
    path(
        f"{DASH}preview/participant/",
        preview.preview_participant,
        name="preview-participant",
    ),
    path(f"{DASH}preview/public/", preview.preview_public, name="preview-public"),
    path(
        f"{DASH}preview/public/<slug:phase>/leaderboard/",
        preview.preview_leaderboard,
        name="preview-leaderboard",
    ),
]

# --- tracks of a phase (views/tracks.py) -------------------------------------------

_TRACKS = "tasks/<slug:slug>/dashboard/phases/<slug:phase>/tracks/"
urlpatterns += [
    path(_TRACKS, track_views.track_list, name="track-list"),
    path(f"{_TRACKS}limits/", track_views.track_limits, name="track-limits"),
    path(f"{_TRACKS}<slug:track>/", track_views.track_edit, name="track-edit"),
    path(f"{_TRACKS}<slug:track>/move/", track_views.track_move, name="track-move"),
    path(
        f"{_TRACKS}<slug:track>/delete/", track_views.track_delete, name="track-delete"
    ),
]

# ---- test sets and hidden gold (views/testsets.py, views/gold.py) ----------------
_TS = "tasks/<slug:slug>/dashboard/testsets/"
urlpatterns += [
    path(_TS, testsets.testset_list, name="testsets"),
    path(f"{_TS}new/", testsets.testset_create, name="testset-create"),
    path(f"{_TS}<int:pk>/", testsets.testset_edit, name="testset-edit"),
    path(f"{_TS}<int:pk>/files/", gold.testset_files, name="testset-files"),
    path(f"{_TS}<int:pk>/files/<str:token>/", gold.gold_draft, name="gold-draft"),
    path(
        f"{_TS}<int:pk>/files/<str:token>/discard/",
        gold.gold_draft_discard,
        name="gold-draft-discard",
    ),
    path(
        f"{_TS}<int:pk>/visibility/",
        testsets.testset_visibility,
        name="testset-visibility",
    ),
    path(f"{_TS}<int:pk>/reveal/", testsets.testset_reveal, name="testset-reveal"),
    path(
        "tasks/<slug:slug>/dashboard/gold-release/",
        testsets.gold_release,
        name="gold-release",
    ),
]

# ---- every run of the task: list, filters, bulk actions (views/runs.py) -----------
urlpatterns += [
    path(f"{DASH}runs/", runs.run_list, name="runs"),
    path(f"{DASH}runs.csv", runs.run_list_csv, name="runs-csv"),
]
