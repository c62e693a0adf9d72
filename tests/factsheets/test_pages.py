"""The fact-sheet pages for every role: anonymous, the run's team, another team,
the task's organiser and the organiser of another task. Whoever may not use a page
gets 404 (or the login page first), and a refused POST changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from evalhub.competitions.models import SharedTask
from evalhub.factsheets.models import Answer, PaperLink, Question
from tests.factsheets.conftest import close

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "participant", "other_team", "organiser", "other_organiser")


@pytest.fixture
def clients(participant, outsider, organiser, django_user_model, task):  # noqa: ANN001, ANN201
    stranger = django_user_model.objects.create_user("org2", password="pw-org2-1")
    other_task = SharedTask.objects.create(
        slug="other-task", title="Other", task_type=task.task_type,
        task_settings=task.task_settings, state="published",
    )  # fmt: skip
    other_task.organisers.add(stranger)
    users = {"participant": participant, "other_team": outsider,
             "organiser": organiser, "other_organiser": stranger}  # fmt: skip
    out = {"anonymous": Client()}
    for role, user in users.items():
        out[role] = Client()
        out[role].force_login(user)
    return out


def _statuses(clients, method, url, data=None):  # noqa: ANN001, ANN202
    return tuple(
        getattr(clients[role], method)(url, data or {}).status_code for role in ROLES
    )


def test_organiser_pages(clients, questions, task):  # noqa: ANN001
    q = questions["notes"]
    urls = {
        "factsheets:question-list": [task.slug],
        "factsheets:question-edit": [task.slug, q.pk],
    }
    for name, args in urls.items():
        assert _statuses(clients, "get", reverse(name, args=args)) == (
            302, 404, 404, 200, 404,
        ), name  # fmt: skip
    # Refused POSTs change nothing.
    add = {"label": "Injected?", "kind": "yes_no"}
    for role in ("anonymous", "participant", "other_team", "other_organiser"):
        c = clients[role]
        c.post(reverse("factsheets:question-list", args=[task.slug]), add)
        c.post(reverse("factsheets:question-edit", args=[task.slug, q.pk]), add)
        c.post(reverse("factsheets:question-delete", args=[task.slug, q.pk]))
        c.post(
            reverse("factsheets:question-move", args=[task.slug, q.pk]), {"to": "up"}
        )
    assert not Question.objects.filter(label="Injected?").exists()
    assert list(Question.objects.filter(task=task).values_list("key", flat=True)) == [
        "external-data", "approach", "params", "code", "notes",
    ]  # fmt: skip
    # The organiser adds, edits, reorders and deletes.
    org = clients["organiser"]
    response = org.post(
        reverse("factsheets:question-list", args=[task.slug]),
        {"label": "Model size", "kind": "choice", "choices": "small\nsmall"},
    )
    assert response.status_code == 422
    assert "at least two distinct options" in response.content.decode()
    response = org.post(
        reverse("factsheets:question-list", args=[task.slug]),
        {"label": "Model size", "kind": "choice", "choices": "small\nlarge",
         "on_board": "on"},
    )  # fmt: skip
    assert response.status_code == 302
    added = Question.objects.get(task=task, key="model-size")
    assert added.choices == ["small", "large"] and added.on_board and added.order == 5
    org.post(
        reverse("factsheets:question-move", args=[task.slug, added.pk]), {"to": "up"}
    )
    assert list(Question.objects.filter(task=task).values_list("key", flat=True))[
        -2:
    ] == ["model-size", "notes"]
    org.post(reverse("factsheets:question-delete", args=[task.slug, added.pk]))
    assert not Question.objects.filter(pk=added.pk).exists()
    dashboard = org.get(reverse("competitions:task-dashboard", args=[task.slug]))
    assert reverse("factsheets:question-list", args=[task.slug]) in (
        dashboard.content.decode()
    )


def test_a_question_with_answers_keeps_its_kind_and_chosen_options(
    clients, questions, runs, task
):
    Answer.objects.create(
        question=questions["approach"], phase=runs["shown"].phase,
        team=runs["shown"].team, method_name="shown-m", value="neural",
    )  # fmt: skip
    url = reverse(
        "factsheets:question-edit", args=[task.slug, questions["approach"].pk]
    )
    org = clients["organiser"]
    response = org.post(url, {"label": "Approach", "key": "approach", "kind": "text"})
    assert response.status_code == 422 and "cannot change" in response.content.decode()
    response = org.post(
        url, {"label": "Approach", "key": "approach", "kind": "choice",
              "choices": "statistical\nhybrid"},
    )  # fmt: skip
    assert response.status_code == 422 and "neural" in response.content.decode()


def test_team_pages(clients, questions, runs, phase):  # noqa: ANN001
    sheet_url = reverse("factsheets:run-sheet", args=[runs["secret"].pk])
    assert _statuses(clients, "get", sheet_url) == (302, 200, 404, 200, 404)
    shown_url = reverse("factsheets:run-sheet", args=[runs["shown"].pk])
    assert _statuses(clients, "get", shown_url) == (302, 200, 404, 200, 404)
    paper_url = reverse("factsheets:run-paper", args=[runs["shown"].pk])
    assert _statuses(clients, "get", paper_url) == (302, 200, 404, 404, 404)
    overview = reverse("factsheets:team-sheets", args=[phase.task.slug, phase.slug])
    assert _statuses(clients, "get", overview) == (302, 200, 200, 200, 404)
    mine = clients["participant"].get(overview).content.decode()
    assert "secret-m" in mine and "theirs" not in mine
    theirs = clients["other_team"].get(overview).content.decode()
    assert "theirs" in theirs and "secret-m" not in theirs and "shown-m" not in theirs
    everyone = clients["organiser"].get(overview).content.decode()
    assert "secret-m" in everyone and "theirs" in everyone
    # Refused POSTs store nothing.
    answers = {"external-data": "yes", "approach": "neural", "notes": "mine"}
    for role in ("anonymous", "other_team", "other_organiser"):
        assert clients[role].post(sheet_url, answers).status_code in (302, 404)
    response = clients["organiser"].post(sheet_url, answers)
    assert response.status_code == 422
    assert "team&#x27;s members" in response.content.decode()
    assert not Answer.objects.exists()
    # A bad answer: the page says which and why.
    response = clients["participant"].post(sheet_url, {**answers, "params": "many"})
    assert response.status_code == 422
    assert "Parameters: &#x27;many&#x27; is not a number" in response.content.decode()
    assert clients["participant"].post(sheet_url, answers).status_code == 302
    assert Answer.objects.filter(method_name="secret-m").count() == 3


def test_run_and_submit_pages_link_the_sheet_and_explain_a_refused_final_choice(
    clients, questions, runs, phase
):
    participant = clients["participant"]
    run = runs["shown"]
    page = participant.get(run.get_absolute_url()).content.decode()
    assert reverse("factsheets:run-sheet", args=[run.pk]) in page
    assert "2 required questions unanswered" in page
    public = clients["anonymous"].get(run.get_absolute_url()).content.decode()
    assert reverse("factsheets:run-sheet", args=[run.pk]) not in public
    submit = participant.get(
        reverse("competitions:run-submit", args=[phase.task.slug, phase.slug])
    ).content.decode()
    assert reverse("factsheets:team-sheets", args=[phase.task.slug, phase.slug]) in (
        submit
    )
    response = participant.post(
        reverse("competitions:run-final", args=[run.pk]), {"final": "1"}, follow=True
    )
    assert "The fact sheet of method &#x27;shown-m&#x27; is incomplete" in (
        response.content.decode()
    )


def test_papers_only_by_the_team_after_the_phase_closes(
    clients, questions, runs, phase
):
    url = reverse("factsheets:run-paper", args=[runs["shown"].pk])
    paper = {"title": "Our system", "doi": "10.18653/v1/x"}
    response = clients["participant"].post(url, paper)
    assert response.status_code == 422
    assert "once the phase has closed" in response.content.decode()
    assert not PaperLink.objects.exists()
    close(phase)
    for role in ("anonymous", "other_team", "organiser", "other_organiser"):
        clients[role].post(url, paper)
    assert not PaperLink.objects.exists()
    bad = clients["participant"].post(url, {"title": "x", "url": "javascript:x()"})
    assert bad.status_code == 422 and "http://" in bad.content.decode()
    assert clients["participant"].post(url, paper).status_code == 302
    assert PaperLink.objects.get().link == "https://doi.org/10.18653/v1/x"
    # A sheet is frozen once the phase has closed.
    sheet = clients["participant"].get(
        reverse("factsheets:run-sheet", args=[runs["shown"].pk])
    )
    assert "the fact sheet is frozen" in sheet.content.decode()


def test_nothing_of_a_draft_task_but_for_its_organisers(
    clients, questions, runs, phase
):
    task = phase.task
    task.state = "draft"
    task.save()
    urls = [
        reverse("factsheets:run-sheet", args=[runs["shown"].pk]),
        reverse("factsheets:run-paper", args=[runs["shown"].pk]),
        reverse("factsheets:team-sheets", args=[task.slug, phase.slug]),
    ]
    for url in urls:
        statuses = _statuses(clients, "get", url)
        assert statuses[:3] == (302, 404, 404) and statuses[4] == 404, url
    assert clients["organiser"].get(urls[0]).status_code == 200
