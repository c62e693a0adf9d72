"""evalhub: the Django project.

Importing the package is light on purpose: the ``evalhub`` console script
(``evalhub.cli``; ``evalhub score`` runs without Django or Celery) lives here. The
Celery app (:mod:`evalhub.celery`) is created when Django starts
(``evalhub.apps.EvalhubConfig.ready``), so ``@shared_task`` jobs bind to it; ``celery -A
evalhub`` finds it as ``evalhub.celery:app``; ``evalhub.celery_app`` still works."""


def __getattr__(name: str) -> object:
    if name == "celery_app":
        from evalhub.celery import app

        return app
    raise AttributeError(f"module 'evalhub' has no attribute {name!r}")
