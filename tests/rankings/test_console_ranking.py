"""A phase's ranking settings on the console's ranking page (the rankings app
provides it in the console's namespace): organisers only, every setting explained,
bad values refused, and saving refreshes the phase's statistics, so switching the
Ladder on replays it on the public board from the submission history."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services.boards import leaderboard
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from tests.rankings.helpers import scored
from tests.rankings.test_statistics import _noisy

pytestmark = pytest.mark.django_db

DEFAULTS = {
    "ladder_margin": "1.0",
    "bootstrap_samples": "1000",
    "seed": "0",
    "alpha": "0.05",
}


def _url(task, phase) -> str:  # noqa: ANN001
    return reverse("console:ranking", args=[task.slug, phase.slug])


@pytest.fixture
def refreshes(monkeypatch):  # noqa: ANN001, ANN201
    """The statistics refreshes the save asks for (test set ids; beat sends their
    jobs to a worker once they are due)."""
    from evalhub.competitions.services.boards import refreshes as service

    calls: list[int] = []
    real = service.request

    def recording(*, kind: str, test_set_id: int) -> bool:
        if kind == service.STATISTICS:
            calls.append(test_set_id)
        return real(kind=kind, test_set_id=test_set_id)

    monkeypatch.setattr(service, "request", recording)
    return calls


def test_the_page_explains_every_setting_and_the_effect_of_saving(
    client, organiser, task, phase
):
    client.force_login(organiser)
    page = client.get(_url(task, phase))
    assert page.status_code == 200
    text = page.content.decode()
    for label in ("Ladder", "Ladder margin", "Bootstrap samples", "Seed"):
        assert f">{label}:</label>" in text
    assert "Significance level" in text and "standard errors" in text
    assert "replays the Ladder from the submission history" in text
    assert "private test sets are never gated" in text
    assert 'aria-current="page">Ranking</a>' in text
    main = text[text.index("<main") : text.index("</main>")]
    assert "/admin/" not in main


def test_switching_the_ladder_on_replays_it_on_the_public_board(
    client,
    organiser,
    task,
    phase,
    test_set,
    bucc_demo,
    participant,
    team,
    refreshes,
    django_capture_on_commit_callbacks,
):
    base = next(f["test"] for _, m, f in bucc_demo.runs if m == "roots only")
    first = scored(phase, participant, base, "first", figures=False)
    noisy = scored(
        phase,
        participant,
        _noisy(base, bucc_demo.test_sets[0].gold["gold"]),
        "noisy",
        figures=False,
    )
    jobs.refresh_statistics(test_set.pk)
    board = leaderboard.board(test_set=test_set)
    assert [r.submission_id for r in board.rows] == [noisy.pk]  # no Ladder: best

    client.force_login(organiser)
    refreshes.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(_url(task, phase), {**DEFAULTS, "ladder": "on"})
    assert response.status_code == 302
    assert PhaseRanking.objects.get(phase=phase).ladder
    assert refreshes == [test_set.pk]  # saving asked the worker for a refresh
    jobs.refresh_statistics(test_set.pk)
    board = leaderboard.board(test_set=test_set)
    assert board.ladder
    assert [r.submission_id for r in board.rows] == [first.pk]  # noise not shown
    page = client.get(response.url).content.decode()
    assert "saved (Ladder)" in page


def test_seed_and_samples_reach_the_intervals(
    client, organiser, task, phase, test_set, demo_run, participant, team, refreshes,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    scored(phase, participant, demo_run, "m", figures=False)
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            _url(task, phase), {**DEFAULTS, "seed": "7", "bootstrap_samples": "500"}
        )
    assert response.status_code == 302
    assert test_set.pk in refreshes
    jobs.refresh_statistics(test_set.pk)
    data = TestSetStatistics.objects.get(test_set=test_set).data
    (interval,) = data["intervals"].values()
    assert (interval["samples"], interval["seed"]) == (500, 7)
    page = client.get(_url(task, phase)).content.decode()
    assert "bootstrap:500|seed:7" in page  # the signature the page lists


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("ladder_margin", "-1"),
        ("ladder_margin", "nan"),
        ("bootstrap_samples", "50"),
        ("bootstrap_samples", "2.5"),
        ("seed", "-3"),
        ("alpha", "0.9"),
        ("alpha", "inf"),
    ],
)
def test_bad_values_are_refused_and_nothing_is_saved(
    client, organiser, task, phase, field, value
):
    client.force_login(organiser)
    response = client.post(_url(task, phase), {**DEFAULTS, field: value})
    assert response.status_code == 422
    assert response.context["form"].errors[field]
    assert not PhaseRanking.objects.filter(phase=phase).exists()


def test_only_the_tasks_organisers_get_in(
    task, phase, participant, team, outsider, django_user_model, bucc_demo
):
    stranger = django_user_model.objects.create_user("org2", is_staff=True)
    other = SharedTask.objects.create(
        slug="other", title="Other", task_type="bilingual_term_alignment",
        task_settings=dict(bucc_demo.settings), state="published",
    )  # fmt: skip
    other.organisers.add(stranger)
    url = _url(task, phase)
    anonymous = Client()
    assert anonymous.get(url).status_code == 302
    assert anonymous.post(url, {**DEFAULTS, "ladder": "on"}).status_code == 302
    for user in (participant, outsider, stranger):
        client = Client()
        client.force_login(user)
        assert client.get(url).status_code == 404, user
        assert client.post(url, {**DEFAULTS, "ladder": "on"}).status_code == 404
    assert not PhaseRanking.objects.exists()


def test_the_dashboard_links_each_phases_ranking_page(client, organiser, task, phase):
    client.force_login(organiser)
    page = client.get(reverse("competitions:task-dashboard", args=[task.slug]))
    assert f'href="{_url(task, phase)}"' in page.content.decode()
