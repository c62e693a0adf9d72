"""A worker SIGKILLed while it writes a task's archive (the console's export): the
row stays "writing" (nothing is marked ready or lost), its job's message coming
back does nothing, and once the export's hard time limit has passed the sweeper
queues it again and another worker writes it; the storage holds that one archive
only."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from evalhub.competitions.models import Submission
from evalhub.console.models import ArchiveExport
from evalhub.console.services import archive_exports
from tests.reliability.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: Run files of random bytes (deflate gains nothing): seconds of writing, so the
#: test kills the worker in the middle of it.
RUNS, RUN_BYTES = 100, 1024 * 1024


def test_a_killed_export_is_written_again_by_another_worker(
    cluster, organiser, task, phase, test_set, participant, team, settings
):  # noqa: ANN001
    for i in range(RUNS):
        run = Submission.objects.create(
            phase=phase, team=team, submitter=participant, method_name=f"m{i}",
            status=Submission.Status.FAILED,
        )  # fmt: skip
        run.file.save("run.tsv", ContentFile(os.urandom(RUN_BYTES)))
    a = cluster.worker("a", queues="default")
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
    folder = archive_exports.folder(task.pk)
    assert not default_storage.exists(folder) or not default_storage.listdir(folder)[1]

    cluster.procs.pop("a")  # dead, as meant: wait_ready checks the living ones
    b = cluster.worker("b", queues="default")
    cluster.wait_ready(b)
    # Within its time limit the killed worker might still be writing: left alone.
    assert archive_exports.sweep()["requeued"] == 0
    limit = timedelta(seconds=settings.ARCHIVE_EXPORT_TIME_LIMIT + 31)
    assert archive_exports.sweep(now=export.started_at + limit)["requeued"] == 1

    def ready() -> ArchiveExport | None:
        export.refresh_from_db()
        assert export.status != ArchiveExport.Status.FAILED, export.failure
        return export if export.status == ArchiveExport.Status.READY else None

    done = wait_for(ready, "the other worker to write the archive", timeout=180)
    assert done.attempts == 2
    assert done.size > RUNS * RUN_BYTES
    assert [folder + name for name in default_storage.listdir(folder)[1]] == [done.file]
