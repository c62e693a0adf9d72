from __future__ import annotations

from django.urls import path

from evalhub.teams import views

app_name = "teams"

urlpatterns = [
    path("", views.team_list, name="team-list"),
    path("new/", views.team_create, name="team-create"),
    path("<int:pk>/", views.team_detail, name="team-detail"),
    path("<int:pk>/invite/", views.invitation_create, name="invitation-create"),
    path("<int:pk>/leave/", views.team_leave, name="team-leave"),
    path("invitations/<int:pk>/", views.invitation_detail, name="invitation-detail"),
    path(
        "invitations/<int:pk>/accept/",
        views.invitation_accept,
        name="invitation-accept",
    ),
    path(
        "invitations/<int:pk>/decline/",
        views.invitation_decline,
        name="invitation-decline",
    ),
    path(
        "invitations/<int:pk>/revoke/",
        views.invitation_revoke,
        name="invitation-revoke",
    ),
    path("join/<str:token>/", views.invitation_join, name="invitation-join"),
]
