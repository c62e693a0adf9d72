"""The Celery application. Broker and result settings come from Django settings
(``CELERY_*``); jobs live in ``evalhub/<app>/jobs.py``."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")

app = Celery("evalhub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(related_name="jobs")
