"""A worker SIGKILLed while it writes a task's archive (the console's export): the
row stays "writing" (nothing is marked ready or lost); once its heartbeat is stale
beat's sweeper queues it again and another worker writes it; the storage holds
that one archive only. A live export's heartbeat keeps the sweeper off it."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from evalhub import worker_queues
from evalhub.competitions.models import Submission
from evalhub.console.models import ArchiveExport
from evalhub.console.services import archive_exports
from tests.reliability.conftest import FAST_ENV, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: Run files of random bytes (deflate gains nothing): seconds of writing, so the
#: test kills the worker in the middle of it.
RUNS, RUN_BYTES = 100, 1024 * 1024


def test_a_killed_export_is_written_again_by_another_worker(
    cluster, organiser, task, phase, test_set, participant, team
):  # noqa: ANN001
    for i in range(RUNS):
        run = Submission.objects.create(
            phase=phase, team=team, submitter=participant, method_name=f"m{i}",
            status=Submission.Status.FAILED,
        )  # fmt: skip
        run.file.save("run.tsv", ContentFile(os.urandom(RUN_BYTES)))
    # Beat in each worker (the one killed, then the other): the sweeper every
    # second; heartbeats stale after 4 s (FAST_ENV).
    a = cluster.worker("a", queues=worker_queues.argument("default"), beat=True)
    cluster.wait_ready(a)
    assert archive_exports.request_export(task=task, user=organiser)
    export = ArchiveExport.objects.get(task=task)

    def copying() -> bool:
        export.refresh_from_db()
        assert export.status != ArchiveExport.Status.READY, "written before the kill"
        return export.stage == "files"

    wait_for(copying, "the worker to copy the files", timeout=120)
    cluster.kill("a")
    export.refresh_from_db()
    assert export.status == ArchiveExport.Status.WRITING and export.attempts == 1
    last_heartbeat, first_sent = export.heartbeat_at, export.sent_at
    folder = archive_exports.folder(task.pk)
    assert not default_storage.exists(folder) or not default_storage.listdir(folder)[1]

    cluster.procs.pop("a")  # dead, as meant: wait_ready checks the living ones
    b = cluster.worker("b", queues=worker_queues.argument("default"), beat=True)
    cluster.wait_ready(b)

    def ready() -> ArchiveExport | None:
        export.refresh_from_db()
        assert export.status != ArchiveExport.Status.FAILED, export.failure
        return export if export.status == ArchiveExport.Status.READY else None

    done = wait_for(ready, "the other worker to write the archive", timeout=180)
    # Claimed twice: once by the killed worker, once by the other (a live
    # export's heartbeat kept the sweeper off it while it was written).
    assert done.attempts == 2
    assert done.size > RUNS * RUN_BYTES
    assert [folder + name for name in default_storage.listdir(folder)[1]] == [done.file]
    # In this order: a's heartbeat went stale, a sweeper pass sent the export
    # again (the heartbeat, not the job's 15-minute time limit, decided it), then b
    # claimed and wrote it.
    stale = timedelta(seconds=int(FAST_ENV["EVALHUB_SCORING_HEARTBEAT_STALE_AFTER"]))
    assert first_sent < done.sent_at
    assert done.sent_at >= last_heartbeat + stale
    assert done.finished_at >= done.sent_at
