"""The jobs that draw scored runs' own figures, run here as a worker runs them.

The scoring job stores a run's score and sends its figure job once its transaction
commits (``services/runs/run_figures.py``); inside a test's transaction (never
committed) no job is sent, so a test that wants the figures runs the job itself,
with the arguments its message carries (the evaluation and its figures key), as it
runs the scoring job itself."""

from __future__ import annotations

from evalhub import worker_queues
from evalhub.competitions import jobs, queue
from evalhub.competitions.models import Evaluation, Submission


def draw_pending(*runs: Submission) -> int:
    """Run the figure job of every evaluation (of ``runs``; of every run if none)
    whose figures are pending. Returns how many were drawn.

    In a test with a live worker (``worker`` and a committed transaction) the
    scoring job also sent the figure job to the broker, and the worker may claim it
    first: the job run here then skips, and the figures are the worker's to draw,
    waited for until drawn."""
    pending = Evaluation.objects.filter(figures=Evaluation.Figures.PENDING)
    if runs:
        pending = pending.filter(submission__in=[r.pk for r in runs])
    drawn = 0
    for pk, key in pending.order_by("pk").values_list("pk", "figures_key"):
        if jobs.draw_run_figures(pk, key) != "drawn":
            _drawn_by_another(pk, key)
        drawn += 1
    return drawn


def _drawn_by_another(pk: int, key: str, timeout: float = 60) -> None:
    """The figures ``key`` of evaluation ``pk``, claimed by another drawer (a live
    worker), end up drawn; anything else (superseded, withdrawn) fails."""
    import time

    figures = Evaluation.Figures
    deadline = time.monotonic() + timeout
    while True:
        state = (
            Evaluation.objects.filter(pk=pk, figures_key=key)
            .values_list("figures", flat=True)
            .first()
        )
        if state == figures.DRAWN:
            return
        assert state == figures.DRAWING, (pk, key, state)  # claimed, being drawn
        assert time.monotonic() < deadline, f"figures of evaluation {pk} not drawn"
        time.sleep(0.1)


def sent(key: str) -> list[list[object]]:
    """The arguments of the figure jobs for ``key`` waiting in the broker, taken off
    it: read where a worker reads them, the scoring queue's list of priority
    ``RUN_FIGURES_PRIORITY`` (kombu's Redis transport keeps a list per step)."""
    import base64
    import json

    from celery import current_app
    from django.conf import settings

    options = current_app.conf.broker_transport_options
    name = f"{worker_queues.SCORING}\x06\x16{settings.RUN_FIGURES_PRIORITY}"
    found = []
    with current_app.connection_for_read() as conn:
        client = conn.default_channel.client
        key_name = options.get("global_keyprefix", "") + name
        for raw in client.lrange(key_name, 0, -1):
            message = json.loads(raw)
            if message["headers"]["task"] != queue.DRAW_RUN_FIGURES:
                continue
            args = json.loads(base64.b64decode(message["body"]))[0]
            if args[1] == key:
                client.lrem(key_name, 1, raw)
                found.append(args)
    return found
