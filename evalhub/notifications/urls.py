from __future__ import annotations

from django.urls import path

from evalhub.notifications import views

app_name = "notifications"

urlpatterns = [
    path("", views.notification_list, name="notification-list"),
    path("bell/", views.notification_bell, name="notification-bell"),
    path("read/", views.notification_read_all, name="notification-read-all"),
    path("<int:pk>/open/", views.notification_open, name="notification-open"),
    path("mail/", views.mail_settings, name="mail-settings"),
]
