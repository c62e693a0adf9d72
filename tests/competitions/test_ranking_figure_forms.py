"""The overall ranking's figure is drawn in the request that asks for it (it
depends on who asks: the runs they may see): a request for one form (SVG, the
phone's SVG, PNG) draws that form alone, not all three, and an equal figure is
kept and handed out again, not drawn for every visitor. Checked through the web
request on the sentence-alignment demo."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from evalhub.competitions.models import Team
from tasks.common import plotting
from tests.rankings.statistics_demo import scored_demo

pytestmark = pytest.mark.django_db

#: The form asked for -> the start of its bytes, and the saves it takes (the
#: phone's SVG is saved as an SVG of the figure redrawn for a phone).
FORMS = {
    "svg": (b"<?xml", ["svg"]),
    "narrow.svg": (b"<?xml", ["svg"]),
    "png": (b"\x89PNG", ["png"]),
}


@pytest.fixture
def board(isolated_storage):  # noqa: ANN001, ANN201
    """The sentence-alignment demo scored, and its first team: (task, phase, team)."""
    task = scored_demo("sentence_alignment")
    phase = task.phases.get()
    team = Team.objects.filter(submissions__phase=phase).order_by("pk").first()
    return task, phase, team


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_request_draws_the_form_it_asks_for_alone(form, client, board, figure_saves):  # noqa: ANN001
    task, phase, team = board
    # A name no other test draws: the figure is drawn here, not handed out by
    # the tests' memo of equal figures (tests/plot_cache.py).
    team.name = f"Team {uuid.uuid4().hex[:8]}"
    team.save(update_fields=["name"])
    answer = client.get(
        reverse("competitions:ranking-plot", args=[task.slug, phase.slug, form])
    )
    assert answer.status_code == 200
    magic, saves = FORMS[form]
    assert answer.content.startswith(magic)
    assert figure_saves == saves


def test_an_equal_figure_is_drawn_once_and_a_changed_one_again(
    client, board, monkeypatch
):  # noqa: ANN001
    """The drawing is kept under a digest of what it draws: the same figure asked
    for again is not drawn again; once a name on it changes, it is. (Counted as
    figures rendered: the tests' memo of equal figures would hide saves.)"""
    task, phase, team = board
    rendered: list[str] = []
    real = plotting.render

    def render(key, title, fig, **options):  # noqa: ANN001, ANN003, ANN202
        rendered.append(options.get("only"))
        return real(key, title, fig, **options)

    monkeypatch.setattr(plotting, "render", render)
    url = reverse("competitions:ranking-plot", args=[task.slug, phase.slug, "svg"])
    first = client.get(url).content
    assert rendered == ["svg"]
    assert client.get(url).content == first
    assert rendered == ["svg"]  # handed out, not drawn
    team.name = f"Team {uuid.uuid4().hex[:8]}"
    team.save(update_fields=["name"])
    assert client.get(url).content != first
    assert rendered == ["svg", "svg"]
