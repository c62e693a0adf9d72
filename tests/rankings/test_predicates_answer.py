"""Predicates answer and never enqueue (issue 41, "names say what things do"): on
main ``access.artefact_current`` and ``access.track_figures_missing`` asked the
worker for a redraw themselves. Now they only answer; the board page that finds
figures stale or missing asks (through a web request here)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.models import TaskArtefact
from evalhub.competitions.services.boards import access, refreshes
from evalhub.competitions.services.runs import hiding
from tests.demo_world import (  # noqa: F401 - fixtures: the world's rows
    isolated_storage_row,
    organiser_row,
    phase_row,
    task_row,
    test_set_row,
)
from tests.rankings.track_world import (  # noqa: F401 - fixtures: the world
    OPEN,
    track_runs_rows,
    track_world,
)

pytestmark = pytest.mark.django_db


def test_a_stale_figure_is_answered_stale_and_the_page_asks_for_it(
    client,
    phase,
    test_set,
    track_runs,
    monkeypatch,
):
    runs, users = track_runs
    hiding.set_hidden(submission=runs[OPEN[0]], user=users[1], hidden=True)
    asked = []
    monkeypatch.setattr(
        refreshes,
        "request",
        lambda *, kind, test_set_id: asked.append((kind, test_set_id)) or True,
    )
    artefacts = list(TaskArtefact.objects.filter(test_set=test_set, track=None))
    answers = [access.artefact_current(a) for a in artefacts]
    assert False in answers
    assert asked == []  # the predicate asked for nothing
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    assert client.get(url).status_code == 200
    assert (refreshes.ANALYSES, test_set.pk) in asked


def test_missing_track_figures_are_answered_and_the_page_asks_for_them(
    client,
    phase,
    test_set,
    track_runs,
    monkeypatch,
):
    TaskArtefact.objects.filter(test_set=test_set, track__isnull=False).delete()
    asked = []
    monkeypatch.setattr(
        refreshes,
        "request",
        lambda *, kind, test_set_id: asked.append((kind, test_set_id)) or True,
    )
    track = phase.tracks.get(slug="open")
    rows = [object()]  # a board with a run
    assert access.track_figures_missing(test_set, track, rows, [])
    assert asked == []
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    assert client.get(url + "?track=open").status_code == 200
    assert (refreshes.ANALYSES, test_set.pk) in asked
