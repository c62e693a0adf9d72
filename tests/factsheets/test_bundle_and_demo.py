"""The fact sheet in a task bundle (export, import, problems with their line) and
in the demo."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services.data import bundles, demo
from evalhub.factsheets.models import Answer, Question
from tests.competitions.test_bundles import MANIFEST
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db

FACTSHEET = """\
factsheet:
  - key: external-data
    question: External data used?
    help: Dictionaries, embeddings, pretrained models
    kind: yes_no
    required: true
    on_leaderboard: true
  - key: approach
    question: Approach
    kind: choice
    choices: [neural, statistical]
  - question: Parameters (millions)
    kind: number
"""


@pytest.fixture
def demo_files(bucc_demo):  # noqa: ANN001, ANN201
    ts = bucc_demo.test_sets[0]
    return {
        "data/src.txt": ts.inputs["source_terms"],
        "data/tgt.txt": ts.inputs["target_terms"],
        "data/gold.tsv": ts.gold["gold"],
    }


def _import(manifest: str, files: dict, user):  # noqa: ANN001, ANN202
    return bundles.import_bundle(
        data=zip_bytes({"task.yaml": manifest.encode(), **files}), user=user
    )


def _questions(task):  # noqa: ANN001, ANN202
    return [
        (q.key, q.label, q.help_text, q.kind, q.choices, q.required, q.on_board)
        for q in Question.objects.filter(task=task)
    ]


def test_the_fact_sheet_round_trips_through_a_bundle(
    organiser,
    demo_files,
    isolated_storage,
):
    task = _import(MANIFEST + FACTSHEET, demo_files, organiser)
    expected = [
        ("external-data", "External data used?",
         "Dictionaries, embeddings, pretrained models", "yes_no", [], True, True),
        ("approach", "Approach", "", "choice", ["neural", "statistical"], False, False),
        ("parameters-millions", "Parameters (millions)", "", "number", [], False, False),
    ]  # fmt: skip
    assert _questions(task) == expected
    exported = bundles.export_bundle(task=task)
    manifest = yaml.safe_load(zipfile.ZipFile(io.BytesIO(exported)).read("task.yaml"))
    assert [q["key"] for q in manifest["factsheet"]] == [e[0] for e in expected]
    task.delete()
    again = bundles.import_bundle(data=exported, user=organiser)
    assert _questions(again) == expected


def test_a_task_without_questions_exports_no_section(
    organiser,
    demo_files,
    isolated_storage,
):
    task = _import(MANIFEST, demo_files, organiser)
    assert b"factsheet" not in bundles.export_bundle(task=task)


def test_fact_sheet_problems_name_their_line_and_create_nothing(
    organiser,
    demo_files,
    isolated_storage,
):
    bad = (
        FACTSHEET.replace("kind: yes_no", "kind: maybe")
        .replace("[neural, statistical]", "[neural]")
        .replace("required: true", "required: sometimes")
    )
    with pytest.raises(bundles.BundleError) as info:
        _import(MANIFEST + bad + "  - question: X\n    kind: text\n    colour: red\n",
                demo_files, organiser)  # fmt: skip
    text = [str(p) for p in info.value.problems]
    start = MANIFEST.count("\n")  # factsheet: is on the next line
    assert any(f"line {start + 6}" in t and "true or false" in t for t in text), text
    assert any(f"line {start + 2}" in t and "kind" in t for t in text), text
    assert any("two distinct options" in t for t in text), text
    assert any("unknown key(s) 'colour'" in t for t in text), text
    assert not SharedTask.objects.exists() and not Question.objects.exists()
    with pytest.raises(bundles.BundleError, match="must be a list"):
        _import(MANIFEST + "factsheet: yes\n", demo_files, organiser)


def test_the_demo_has_a_fact_sheet_with_answers(isolated_storage):
    demo.seed_demo(slugs=["bilingual_term_alignment"])
    task = SharedTask.objects.get(slug="demo-bilingual-term-alignment")
    questions = list(Question.objects.filter(task=task))
    assert [q.key for q in questions] == ["external-data", "approach", "code"]
    assert [q.key for q in questions if q.on_board] == ["external-data"]
    runs = task.phases.get().submissions.exclude(status="rejected")
    systems = set(runs.values_list("team_id", "method_name"))
    assert len(systems) >= 2
    answered = set(
        Answer.objects.filter(question=questions[0]).values_list(
            "team_id", "method_name"
        )
    )
    assert answered == systems
    assert set(
        Answer.objects.filter(question=questions[0]).values_list("value", flat=True)
    ) == {"yes", "no"}
    demo.seed_demo(slugs=["bilingual_term_alignment"])  # idempotent
    assert Question.objects.filter(task=task).count() == 3
