"""Fact sheets: validation per kind, saving per method (shared by the method's runs),
freezing when the phase closes, and the complete sheet a final run needs."""

from __future__ import annotations

import pytest

from evalhub.competitions.services.runs import finals
from evalhub.factsheets.models import Answer
from evalhub.factsheets.services import kinds, sheets
from tests.competitions.runs import stored_run
from tests.factsheets.conftest import close

pytestmark = pytest.mark.django_db

FULL = {"external-data": "yes", "approach": "neural", "params": "1.5e6",
        "code": "https://example.org/code", "notes": "BERT + rules"}  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "raw", "stored"),
    [
        ("yes_no", "Yes", "yes"),
        ("yes_no", "false", "no"),
        ("yes_no", True, "yes"),
        ("number", " 12 ", "12"),
        ("number", "-0.25", "-0.25"),
        ("number", "1e3", "1000"),
        ("text", "  a line  ", "a line"),
        ("url", "http://example.org/x?y=1", "http://example.org/x?y=1"),
        ("choice", "neural", "neural"),
        ("text", "", ""),
        ("number", None, ""),
    ],
)
def test_kinds_store_a_normal_form(kind, raw, stored):  # noqa: ANN001
    assert kinds.parse(kind, raw, ["neural", "statistical"]) == stored


@pytest.mark.parametrize(
    ("kind", "raw", "message"),
    [
        ("yes_no", "maybe", "yes or no"),
        ("number", "nan", "not a number"),
        ("number", "inf", "not a number"),
        ("number", "1e999", "finite"),
        ("number", "12abc", "not a number"),
        ("url", "javascript:alert(1)", "http"),
        ("url", "ftp://example.org/", "http"),
        ("url", "example.org", "http"),
        ("choice", "Neural", "Choose one of"),
        ("text", "two\nlines", "one line"),
        ("text", "x" * 201, "at most 200"),
    ],
)
def test_kinds_refuse_with_a_clear_message(kind, raw, message):  # noqa: ANN001
    with pytest.raises(kinds.Invalid, match=message):
        kinds.parse(kind, raw, ["neural", "statistical"])


def test_answers_belong_to_the_method_and_are_reused_by_its_later_runs(
    questions, runs, phase, team, participant, test_set
):
    sheets.save(submission=runs["shown"], user=participant, data=FULL)
    later = stored_run(
        phase, team, participant, {test_set: 0.1}, minutes_ago=1, method="shown-m"
    )
    sheet = sheets.sheet(submission=later, user=participant)
    assert {f.question.key: f.value for f in sheet.fields} == {
        **FULL, "params": "1500000"
    }  # fmt: skip
    assert sheet.complete and sheet.editable
    # Another method of the same team has its own (empty) sheet.
    other = sheets.sheet(submission=runs["secret"], user=participant)
    assert not any(f.value for f in other.fields)
    assert [q.key for q in other.missing] == ["external-data", "approach"]


def test_invalid_answers_name_their_question_and_nothing_is_stored(
    questions, runs, participant
):
    with pytest.raises(sheets.SheetInvalid) as caught:
        sheets.save(
            submission=runs["shown"],
            user=participant,
            data={**FULL, "params": "lots", "code": "javascript:alert(1)"},
        )
    assert set(caught.value.errors) == {"params", "code"}
    assert "Parameters" in caught.value.errors["params"]
    assert not Answer.objects.exists()


def test_an_empty_answer_removes_the_stored_one(questions, runs, participant):
    sheets.save(submission=runs["shown"], user=participant, data=FULL)
    sheets.save(submission=runs["shown"], user=participant, data={**FULL, "notes": ""})
    assert not Answer.objects.filter(question=questions["notes"]).exists()
    assert Answer.objects.count() == 4


def test_only_the_team_edits_and_the_sheet_freezes_when_the_phase_closes(
    questions, runs, participant, outsider, organiser, phase
):
    for user in (outsider, organiser):
        with pytest.raises(sheets.Refused, match="team's members"):
            sheets.save(submission=runs["shown"], user=user, data=FULL)
    sheets.save(submission=runs["shown"], user=participant, data=FULL)
    close(phase)
    runs["shown"].phase.refresh_from_db()
    with pytest.raises(sheets.Refused, match="closed"):
        sheets.save(
            submission=runs["shown"], user=participant, data={**FULL, "notes": "x"}
        )
    sheet = sheets.sheet(submission=runs["shown"], user=participant)
    assert not sheet.editable and "closed" in sheet.frozen_reason
    assert Answer.objects.get(question=questions["notes"]).value == "BERT + rules"


def test_a_final_run_needs_a_complete_sheet(questions, runs, participant):
    run = runs["shown"]
    with pytest.raises(finals.ChoiceRefused, match="External data used"):
        finals.set_final(submission=run, user=participant, final=True)
    run.refresh_from_db()
    assert not run.final_selected
    sheets.save(
        submission=run, user=participant, data={"external-data": "no"}
    )  # still no approach
    with pytest.raises(finals.ChoiceRefused, match="Approach"):
        finals.set_final(submission=run, user=participant, final=True)
    sheets.save(submission=run, user=participant, data=FULL)
    finals.set_final(submission=run, user=participant, final=True)
    run.refresh_from_db()
    assert run.final_selected


def test_required_answers_stay_while_a_run_of_the_method_is_final(
    questions, runs, participant
):
    run = runs["shown"]
    sheets.save(submission=run, user=participant, data=FULL)
    finals.set_final(submission=run, user=participant, final=True)
    # Optional answers still change; a required one cannot be removed.
    sheets.save(submission=run, user=participant, data={**FULL, "notes": "v2"})
    with pytest.raises(sheets.Refused, match=f"run {run.pk} of this method is chosen"):
        sheets.save(submission=run, user=participant, data={**FULL, "approach": ""})
    assert Answer.objects.get(question=questions["approach"]).value == "neural"
    finals.set_final(submission=run, user=participant, final=False)
    sheets.save(submission=run, user=participant, data={**FULL, "approach": ""})
    assert not Answer.objects.filter(question=questions["approach"]).exists()


def test_without_questions_final_choice_is_unchanged(runs, participant):
    finals.set_final(submission=runs["shown"], user=participant, final=True)
    runs["shown"].refresh_from_db()
    assert runs["shown"].final_selected


def test_a_new_phase_offers_the_method_s_earlier_answers(
    questions, runs, participant, phase, team, test_set
):
    from datetime import timedelta

    from django.utils import timezone

    from evalhub.competitions.models import Phase

    sheets.save(submission=runs["shown"], user=participant, data=FULL)
    now = timezone.now()
    later_phase = Phase.objects.create(
        task=phase.task, slug="final", name="Final", order=1,
        opens_at=now - timedelta(hours=1), closes_at=now + timedelta(days=1),
    )  # fmt: skip
    run = stored_run(
        later_phase, team, participant, {}, minutes_ago=1, method="shown-m"
    )
    sheet = sheets.sheet(submission=run, user=participant)
    assert sheet.suggested_from == phase
    assert sheet.suggested == {**FULL, "params": "1500000"}
    assert not any(f.value for f in sheet.fields) and not sheet.complete  # not stored
    assert Answer.objects.filter(phase=later_phase).count() == 0
    other = stored_run(later_phase, team, participant, {}, minutes_ago=1, method="new")
    assert sheets.sheet(submission=other, user=participant).suggested == {}
