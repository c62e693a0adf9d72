"""Gold upload help and labels (term_extraction, the type whose gold carries
labels): the help shows ``term<TAB>label`` literally (and an uploaded file's name as
text); a label outside the type's declared labels, or a line of only a tab, is
refused with file and line, on the console as by the offline ``evalhub score``."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import Phase, SharedTask, TestSet, TestSetFile
from tasks import cli

pytestmark = pytest.mark.django_db

BAD_GOLD = b"heart failure\tSpecific_Term\n\t\nejection fraction\tSymptom\necg\n"


@pytest.fixture
def term_set(organiser, isolated_storage):  # noqa: ANN001, ANN201
    task = SharedTask.objects.create(
        slug="terms", title="Terms", task_type="term_extraction"
    )
    task.organisers.add(organiser)
    now = timezone.now()
    phase = Phase.objects.create(
        task=task, slug="test", name="Test", opens_at=now,
        closes_at=now + timedelta(days=3),
    )  # fmt: skip
    return TestSet.objects.create(phase=phase, slug="public", name="Public")


def _files_url(test_set) -> str:  # noqa: ANN001
    return reverse(
        "console:testset-files", args=[test_set.phase.task.slug, test_set.pk]
    )


def _upload(client, test_set, name: str, data: bytes):  # noqa: ANN001, ANN202
    return client.post(
        _files_url(test_set), {"file_gold": SimpleUploadedFile(name, data)}
    )


def test_the_help_shows_the_tab_and_the_file_name_as_text(client, organiser, term_set):
    client.force_login(organiser)
    page = client.get(_files_url(term_set)).content.decode()
    assert "optionally term&lt;TAB&gt;label (Specific_Term, Common_Term" in page
    assert "term<TAB>" not in page
    name = "<i>gold.tsv"
    response = _upload(client, term_set, name, b"heart failure\tSpecific_Term\n")
    assert response.status_code == 302
    assert client.post(response["Location"]).status_code == 302
    page = client.get(_files_url(term_set)).content.decode()
    assert "Now: &lt;i&gt;gold.tsv." in page
    assert "<i>gold" not in page


def test_an_unknown_label_and_a_tab_only_line_are_refused_with_their_line(
    client, organiser, term_set
):
    client.force_login(organiser)
    response = _upload(client, term_set, "terms.tsv", BAD_GOLD)
    assert response.status_code == 422
    problems = [str(p) for p in response.context["problems"]]
    assert len(problems) == 2, problems
    assert problems[0].startswith("terms.tsv, line 2: ")
    assert "only a tab" in problems[0]
    assert problems[1].startswith("terms.tsv, line 3: ")
    assert "label 'Symptom'" in problems[1] and "Specific_Term" in problems[1]
    assert not TestSetFile.objects.exists()


def test_the_offline_scorer_refuses_the_same_lines(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_bytes(BAD_GOLD)
    run = tmp_path / "run.txt"
    run.write_text("heart failure\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(
            ["score", "term_extraction", "--gold", str(gold), "--run", str(run)]
        )
    assert code == 2
    assert f"--gold {gold}, line 2: " in err.getvalue()
    assert f"--gold {gold}, line 3: label 'Symptom'" in err.getvalue()
