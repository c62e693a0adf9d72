"""A worker's start does no work whose answer nobody reads: Celery's Django fixup
runs Django's system checks when a worker starts and drops their messages, so
``evalhub/celery.py`` skips them there (``CELERY_SKIP_CHECKS``); they run where
they are read (``manage.py check``, ``migrate``, ``up``)."""

from __future__ import annotations


def test_a_worker_start_runs_no_system_checks(monkeypatch):  # noqa: ANN001
    from celery.fixups.django import DjangoWorkerFixup
    from django.core import checks

    from evalhub.celery import app

    ran: list[object] = []
    monkeypatch.setattr(checks, "run_checks", lambda *a, **k: ran.append(a) or [])
    DjangoWorkerFixup(app).validate_models()  # what a worker's start calls
    assert ran == []
