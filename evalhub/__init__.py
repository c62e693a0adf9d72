"""evalhub: the Django project. The Celery app is loaded with Django so that
``@shared_task`` jobs bind to it."""

from evalhub.celery import app as celery_app

__all__ = ["celery_app"]
