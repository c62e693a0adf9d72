"""The overall ranking is computed once per audience (the task's organisers, or
everyone else) and kept under its boards' versions: the page, its CSV and its
figure read it, and each change that alters it (a renamed team, a hidden run)
has the next request compute it again. Through web requests on the
sentence-alignment demo; the computations are counted where they happen."""

from __future__ import annotations

import logging
import uuid

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils.html import escape

from evalhub.competitions.models import Submission, Team
from evalhub.competitions.services.boards import overall, visibility
from evalhub.competitions.services.boards.own_rows import MARKER
from tests.competitions.runs import hide_as_its_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def computed(monkeypatch):  # noqa: ANN001, ANN201
    """The audiences the overall ranking was computed for, in order."""
    calls: list[str] = []
    real = overall._compute  # noqa: SLF001

    def counting(**kwargs):  # noqa: ANN003, ANN202
        public = kwargs["viewer"] is visibility.PUBLIC
        calls.append("public" if public else "organisers")
        return real(**kwargs)

    monkeypatch.setattr(overall, "_compute", counting)
    return calls


def _urls(task, phase) -> list[str]:  # noqa: ANN001
    page = reverse("competitions:ranking-detail", args=[task.slug, phase.slug])
    return [page] + [
        reverse("competitions:ranking-plot", args=[task.slug, phase.slug, ext])
        for ext in ("csv", "svg")
    ]


def _get(client, url: str) -> str:  # noqa: ANN001
    answer = client.get(url)
    assert answer.status_code == 200
    return answer.content.decode(errors="replace")


def test_each_audience_computes_it_once(
    client, scored_alignment, computed, organiser, django_user_model
):  # noqa: ANN001
    task, phase = scored_alignment
    team = Team.objects.filter(submissions__phase=phase).order_by("pk").first()
    member = django_user_model.objects.create_user(f"member-{uuid.uuid4().hex[:6]}")
    team.members.add(member)
    task.organisers.add(organiser)
    visitor = [_get(client, url) for url in _urls(task, phase)]
    assert computed == ["public"]
    assert team.name in visitor[0]
    assert MARKER not in visitor[0]
    client.force_login(member)  # a participant sees what the public sees
    own = [_get(client, url) for url in _urls(task, phase)]
    assert computed == ["public"]
    # ... with its own team's row marked in the table kept for every viewer
    assert own[0].count(MARKER) == 1
    assert f"{escape(team.name)}{MARKER}" in own[0]
    client.logout()
    assert MARKER not in _get(client, _urls(task, phase)[0])
    client.force_login(organiser)
    for _ in range(2):
        for url in _urls(task, phase):
            _get(client, url)
    assert computed == ["public", "organisers"]


def test_a_change_is_ranked_by_the_next_request(
    client, scored_alignment, computed, organiser
):  # noqa: ANN001
    task, phase = scored_alignment
    page, csv, _ = _urls(task, phase)
    run = (
        Submission.objects.filter(phase=phase, status=Submission.Status.SCORED)
        .select_related("team")
        .order_by("pk")
        .first()
    )
    assert f"{run.pk}," in _get(client, csv)
    team = run.team
    team.name = f"Renamed {uuid.uuid4().hex[:8]}"
    team.save(update_fields=["name"])
    assert team.name in _get(client, page)
    assert computed == ["public", "public"]
    hide_as_its_team(client, run, team.members.first())
    rows = _get(client, csv).splitlines()
    assert not any(line.split(",")[1] == str(run.pk) for line in rows[1:])
    task.organisers.add(organiser)
    client.force_login(organiser)  # organisers still rank it
    rows = _get(client, csv).splitlines()
    assert any(line.split(",")[1] == str(run.pk) for line in rows[1:])
    assert computed == ["public", "public", "public", "organisers"]


def test_a_changed_figure_is_drawn_again_in_the_place_of_the_old(
    client, scored_alignment, organiser
):  # noqa: ANN001
    """The figure is kept with a digest of what it draws, one drawing per form and
    audience: a change (a renamed team) draws it again in the old one's place,
    not beside it."""
    task, phase = scored_alignment
    svg = _urls(task, phase)[2]
    redis = cache._cache.get_client(write=True)  # noqa: SLF001

    def kept() -> list[bytes]:
        # this test's namespace only (``tests/conftest.py``)
        mine = cache.make_key(f"overall-figure:{phase.pk}:")
        return sorted(redis.scan_iter(match=f"{mine}*"))

    before = client.get(svg).content
    assert len(kept()) == 1
    team = Team.objects.filter(submissions__phase=phase).order_by("pk").first()
    team.name = f"Renamed {uuid.uuid4().hex[:8]}"
    team.save(update_fields=["name"])
    after = client.get(svg).content
    assert after != before
    assert len(kept()) == 1
    assert client.get(svg).content == after
    task.organisers.add(organiser)
    client.force_login(organiser)  # the organisers' own drawing
    client.get(svg)
    assert len(kept()) == 2


def test_with_the_cache_down_the_ranking_and_its_figure_are_computed_afresh(
    client, scored_alignment, settings, caplog
):  # noqa: ANN001
    from tests.reliability.conftest import free_port

    task, phase = scored_alignment
    _, csv, svg = _urls(task, phase)
    settings.CACHES = {
        "default": {
            "BACKEND": "evalhub.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nobody listens
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    with caplog.at_level(logging.WARNING, logger="evalhub.cache"):
        figure = client.get(svg)
    assert figure.status_code == 200
    assert figure.content.startswith(b"<?xml")
    assert f"computing overall-figure:{phase.pk}:" in caplog.text
    assert len(_get(client, csv).splitlines()) > 1
