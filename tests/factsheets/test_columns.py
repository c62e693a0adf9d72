"""Answers and papers on the leaderboard and in the exports: only what the viewer
may see (a method whose runs are all hidden: its team and the organisers only),
plain text everywhere, and every change shown at once (the boards' cache)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from evalhub.competitions.services.boards import systems
from evalhub.competitions.services.runs import hiding
from evalhub.factsheets.models import Answer, Question
from evalhub.factsheets.services import papers
from evalhub.factsheets.services import questions as questions_service
from tests.factsheets.conftest import close

pytestmark = pytest.mark.django_db

SECRET = "SECRET-NOTE-4711"
FORMULA = '=HYPERLINK("http://evil.example/","x")'
SCRIPT = "<script>alert(1)</script>"


def _answer(question, run, value):  # noqa: ANN001, ANN202
    return Answer.objects.create(
        question=question, phase=run.phase, team=run.team,
        method_name=run.method_name, value=value,
    )  # fmt: skip


@pytest.fixture
def answered(questions, runs):  # noqa: ANN001, ANN201
    notes = questions["notes"]
    notes.on_board = True
    notes.save()
    _answer(questions["external-data"], runs["shown"], "yes")
    _answer(notes, runs["shown"], "SHOWN-NOTE")
    _answer(questions["external-data"], runs["secret"], "no")
    _answer(notes, runs["secret"], SECRET)
    _answer(notes, runs["theirs"], FORMULA + " " + SCRIPT)
    return runs


def _client(user=None) -> Client:  # noqa: ANN001
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def _board(client, phase) -> str:  # noqa: ANN001
    response = client.get(f"/tasks/{phase.task.slug}/{phase.slug}/leaderboard/")
    assert response.status_code == 200
    return response.content.decode()


def _export(client, phase, fmt):  # noqa: ANN001, ANN202
    response = client.get(
        f"/exports/tasks/{phase.task.slug}/{phase.slug}/leaderboard.{fmt}"
    )
    assert response.status_code == 200
    return response.content.decode()


def test_columns_hold_only_what_the_viewer_may_see(
    answered, phase, participant, outsider, organiser
):
    def notes(viewer):  # noqa: ANN001, ANN202
        (column,) = [
            c for c in systems.system_columns(phase, viewer) if c.key == "fact:notes"
        ]
        return set(column.values.values())

    public = {"SHOWN-NOTE", FORMULA + " " + SCRIPT}
    assert notes(AnonymousUser()) == public
    assert notes(participant) == public  # its hidden method: on its own pages only
    assert notes(outsider) == public
    assert notes(organiser) == public | {SECRET}
    board_only = systems.system_columns(phase, AnonymousUser(), board_only=True)
    assert [c.key for c in board_only] == ["fact:external-data", "fact:notes"]


def test_a_method_is_described_publicly_once_one_of_its_runs_is_shown(
    answered, phase, participant
):
    hiding.set_hidden(submission=answered["secret"], user=participant, hidden=False)
    (column,) = [
        c
        for c in systems.system_columns(phase, AnonymousUser())
        if c.key == "fact:notes"
    ]
    assert SECRET in column.values.values()


def test_nothing_of_a_draft_task(answered, phase, outsider):
    task = phase.task
    task.state = "draft"
    task.save()
    assert systems.system_columns(phase, outsider) == []


def test_the_board_shows_the_chosen_answers_as_plain_text(
    answered, phase, participant, organiser
):
    html = _board(_client(), phase)
    assert "External data used?" in html and "SHOWN-NOTE" in html
    assert SECRET not in html and "Parameters" not in html  # not a board column
    assert SCRIPT not in html and "&lt;script&gt;" in html
    assert SECRET not in _board(_client(participant), phase)
    assert SECRET in _board(_client(organiser), phase)


def test_exports_carry_every_visible_answer_and_nothing_hidden(
    answered, phase, organiser, private_test_set
):
    text = _export(_client(), phase, "csv")
    assert SECRET not in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["test_set"] for r in rows} == {"public"}  # the private one: not revealed
    by_method = {r["method"]: r for r in rows}
    assert by_method["shown-m"]["fact:external-data"] == "yes"
    assert by_method["shown-m"]["fact:params"] == ""
    assert by_method["theirs"]["fact:notes"] == "'" + FORMULA + " " + SCRIPT
    data = json.loads(_export(_client(), phase, "json"))
    assert SECRET not in json.dumps(data)
    assert [c["key"] for c in data["system_columns"]][:2] == [
        "fact:external-data",
        "fact:approach",
    ]
    (board,) = data["test_sets"]
    shown = next(r for r in board["rows"] if r["method"] == "shown-m")
    assert shown["system"]["fact:notes"] == "SHOWN-NOTE"
    organiser_json = _export(_client(organiser), phase, "json")
    assert SECRET in organiser_json
    # The REST API's leaderboard is the same export.
    api = _client().get(f"/api/tasks/{phase.task.slug}/phases/{phase.slug}/leaderboard")
    assert api.status_code == 200
    assert SECRET not in api.content.decode()
    assert api.json()["system_columns"][0]["key"] == "fact:external-data"
    api_rows = api.json()["test_sets"][0]["rows"]
    assert {r["method"]: r["system"]["fact:notes"] for r in api_rows}["shown-m"] == (
        "SHOWN-NOTE"
    )


def test_changes_show_on_the_cached_board_at_once(
    answered, phase, participant, questions
):
    anonymous = _client()
    assert "SHOWN-NOTE" in _board(anonymous, phase)  # now cached
    from evalhub.factsheets.services import sheets

    sheets.save(
        submission=answered["shown"], user=participant,
        data={"external-data": "yes", "approach": "neural", "notes": "NEW-NOTE"},
    )  # fmt: skip
    html = _board(anonymous, phase)
    assert "NEW-NOTE" in html and "SHOWN-NOTE" not in html
    # The organiser adds a board column; then removes the question.
    questions_service.update(
        question=questions["approach"],
        data={"key": "approach", "label": "Approach", "kind": "choice",
              "choices": "neural\nstatistical", "required": True, "on_board": True},
    )  # fmt: skip
    assert ">Approach<" in _board(anonymous, phase)
    questions_service.delete(question=Question.objects.get(key="notes"))
    assert "NEW-NOTE" not in _board(anonymous, phase)
    # Hiding the method's only shown run takes its answers off the public board.
    hiding.set_hidden(submission=answered["shown"], user=participant, hidden=True)
    assert "neural" not in _board(anonymous, phase)


def test_papers_after_the_phase_closes(answered, phase, participant, outsider):
    with pytest.raises(papers.Refused, match="once the phase has closed"):
        papers.attach(
            submission=answered["shown"], user=participant, title="T", doi="10.1/x"
        )
    close(phase)
    for run in (answered["shown"], answered["secret"]):
        run.phase.refresh_from_db()
    with pytest.raises(papers.Refused, match="team's members"):
        papers.attach(
            submission=answered["theirs"],
            user=participant,
            title="T",
            url="https://x.org/",
        )
    with pytest.raises(papers.PaperInvalid) as caught:
        papers.attach(
            submission=answered["shown"], user=participant, title="",
            url="javascript:alert(1)", doi="11.2/x",
        )  # fmt: skip
    assert set(caught.value.errors) == {"title", "url", "doi"}
    anonymous = _client()
    _board(anonymous, phase)  # cached before the paper
    papers.attach(
        submission=answered["shown"], user=participant,
        title="Alpha at the shared task", doi="https://doi.org/10.18653/v1/2022.bucc-1.1",
    )  # fmt: skip
    papers.attach(
        submission=answered["secret"], user=participant,
        title="A paper of a hidden method", url="https://example.org/secret.pdf",
    )  # fmt: skip
    html = _board(anonymous, phase)
    assert 'href="https://doi.org/10.18653/v1/2022.bucc-1.1"' in html
    assert "Alpha at the shared task" in html
    assert "hidden method" not in html and "secret.pdf" not in html
    rows = list(csv.DictReader(io.StringIO(_export(anonymous, phase, "csv"))))
    shown = next(r for r in rows if r["method"] == "shown-m")
    assert shown["paper"] == "Alpha at the shared task"
    assert shown["paper:url"] == "https://doi.org/10.18653/v1/2022.bucc-1.1"
    run_page = anonymous.get(f"/runs/{answered['shown'].pk}/").content.decode()
    assert "Paper: Alpha at the shared task" in run_page
    assert "External data used?: yes" in run_page
    papers.remove(submission=answered["shown"], user=participant)
    assert "Alpha at the shared task" not in _board(anonymous, phase)
