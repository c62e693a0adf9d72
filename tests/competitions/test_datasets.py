from __future__ import annotations

import pytest
from django.db import transaction

from evalhub.competitions.models import TestSet, TestSetFile
from evalhub.competitions.services.data import datasets
from tasks.base import FormatError

pytestmark = pytest.mark.django_db


def test_bad_gold_is_refused_and_the_stored_gold_kept(test_set):
    before = TestSetFile.objects.get(test_set=test_set, role="gold").sha256
    version = test_set.gold_version
    with pytest.raises(FormatError) as info:
        datasets.store_file(
            test_set=test_set, role="gold", filename="gold.tsv", data=b"no tab\n"
        )
    assert "line 1" in str(info.value)
    assert TestSetFile.objects.get(test_set=test_set, role="gold").sha256 == before
    assert TestSet.objects.get(pk=test_set.pk).gold_version == version


def test_replacing_gold_bumps_its_version(test_set, bucc_demo):
    gold = bucc_demo.test_sets[0].gold["gold"]
    smaller = b"\n".join(gold.splitlines()[:10]) + b"\n"
    version = test_set.gold_version
    _, notes = datasets.store_file(
        test_set=test_set, role="gold", filename="gold2.tsv", data=smaller
    )
    assert notes == ()
    assert TestSet.objects.get(pk=test_set.pk).gold_version == version + 1
    stored = TestSetFile.objects.get(test_set=test_set, role="gold")
    assert stored.private and stored.size == len(smaller)


def test_unknown_role_is_refused(test_set):
    with pytest.raises(datasets.UnknownRole, match="source_terms"):
        datasets.store_file(test_set=test_set, role="answers", filename="x", data=b"x")


def test_term_extraction_gold_upload_reports_merged_lines(phase, isolated_storage):
    from evalhub.competitions.models import SharedTask

    task = phase.task
    SharedTask.objects.filter(pk=task.pk).update(
        task_type="term_extraction", task_settings={}
    )
    test_set = TestSet.objects.create(phase=phase, slug="te", name="TE")
    test_set.phase.task.refresh_from_db()
    gold = "heart failure\tSpecific_Term\nheart  failure\tSpecific_Term\nejection\tCommon_Term\n"
    _, notes = datasets.store_file(
        test_set=test_set, role="gold", filename="gold.tsv", data=gold.encode()
    )
    assert notes and "1" in notes[0] and "2" in notes[0]


def test_data_view_escapes_and_tabulates():
    from evalhub.competitions.templatetags.evalhub_tags import data_view

    html = str(
        data_view(
            {
                "clusters": [
                    {"gold": "<script>", "outputs": [{"term": "x", "distance": 0.5}]}
                ]
            }
        )
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<table>" in html and "x (0.5)" in html


def test_replaced_gold_file_is_deleted_only_after_commit(
    test_set, bucc_demo, django_capture_on_commit_callbacks
):
    old = TestSetFile.objects.get(test_set=test_set, role="gold")
    storage, old_name = old.file.storage, old.file.name
    smaller = b"\n".join(bucc_demo.test_sets[0].gold["gold"].splitlines()[:10]) + b"\n"

    class Abort(Exception):
        pass

    with pytest.raises(Abort), transaction.atomic():
        datasets.store_file(
            test_set=test_set, role="gold", filename="gold2.tsv", data=smaller
        )
        raise Abort
    # Rolled back: the row still points at the old file, and the file is there.
    assert TestSetFile.objects.get(pk=old.pk).file.name == old_name
    assert storage.exists(old_name)

    with django_capture_on_commit_callbacks(execute=True):
        new, _ = datasets.store_file(
            test_set=test_set, role="gold", filename="gold2.tsv", data=smaller
        )
    assert new.file.name != old_name
    assert storage.exists(new.file.name) and not storage.exists(old_name)
