"""The leaderboard page with tracks: the selector, the choice kept in the address,
the all-tracks view marking each row's track, unknown tracks not found, and the leak
rules per track (hidden runs, private test sets; no counts in the selector), with
the anonymous page cached per track."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from evalhub.competitions.models import Submission
from evalhub.competitions.services import teams
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import hiding
from tests.competitions.runs import stored_run

pytestmark = pytest.mark.django_db

SECRET = 0.8642  # only the private test set's board would show it


def _url(phase, track: str = "") -> str:  # noqa: ANN001
    base = f"/tasks/{phase.task.slug}/{phase.slug}/leaderboard/"
    return base + (f"?track={track}" if track else "")


def _in(sub: Submission, html: bytes) -> bool:
    return f"/runs/{sub.pk}/".encode() in html


@pytest.fixture
def world(phase, test_set, private_test_set, team, participant, outsider, task):  # noqa: ANN001, ANN201
    closed = tracks.save_track(phase=phase, slug="closed", name="Closed")
    open_ = tracks.save_track(phase=phase, slug="open", name="Open web")
    other = teams.register(task=task, user=outsider, new_team_name="Beta").team
    runs = {}
    for key, t, user, team_obj, value in (
        ("alpha_closed", closed, participant, team, 0.61),
        ("alpha_open", open_, participant, team, 0.73),
        ("beta_open", open_, outsider, other, 0.52),
    ):
        sub = stored_run(
            phase, team_obj, user, {test_set: value, private_test_set: SECRET},
            minutes_ago=10, method=key,
        )  # fmt: skip
        Submission.objects.filter(pk=sub.pk).update(track=t)
        runs[key] = sub
    return runs


def test_the_selector_and_the_boards_per_track(client, phase, world):
    everything = client.get(_url(phase)).content
    assert b'aria-label="Tracks"' in everything
    assert b'href="?track=closed"' in everything and b'href="?track=open"' in everything
    assert all(_in(s, everything) for s in world.values())
    assert b'<span class="badge track">Open web</span>' in everything
    closed = client.get(_url(phase, "closed")).content
    assert b'href="?track=closed" aria-current="page"' in closed
    assert _in(world["alpha_closed"], closed)
    assert not _in(world["alpha_open"], closed) and not _in(world["beta_open"], closed)
    assert b'<span class="badge track">' not in closed  # one track: no marks
    assert b"leaderboard.json?track=closed" in closed
    opened = client.get(_url(phase, "open")).content
    assert _in(world["alpha_open"], opened) and not _in(world["alpha_closed"], opened)
    assert client.get(_url(phase, "nope")).status_code == 404


def test_no_leak_through_tracks(client, phase, world, participant, organiser):
    hiding.set_hidden(submission=world["beta_open"], user=world["beta_open"].submitter,
                      hidden=True)  # fmt: skip
    for url in (_url(phase), _url(phase, "open")):
        for viewer in (None, participant):
            c = Client()
            if viewer:
                c.force_login(viewer)
            html = c.get(url).content
            assert not _in(world["beta_open"], html), (viewer, url)
            assert b"0.8642" not in html  # the private test set stays private
            assert b"private until the organisers reveal" in html
            nav = html.split(b'aria-label="Tracks"')[1].split(b"</nav>")[0]
            assert not re.search(rb"\d", nav), nav  # no counts per track
        org = Client()
        org.force_login(organiser)
        html = org.get(url).content
        assert _in(world["beta_open"], html) and b"0.8642" in html


def test_anonymous_pages_are_cached_per_track(
    client, phase, world, django_assert_num_queries
):
    client.get(_url(phase, "closed"))
    client.get(_url(phase, "open"))
    with django_assert_num_queries(1):
        closed = client.get(_url(phase, "closed")).content
    with django_assert_num_queries(1):
        opened = client.get(_url(phase, "open")).content
    assert _in(world["alpha_closed"], closed) and not _in(world["alpha_closed"], opened)
    # Renaming a track shows at once.
    tracks.save_track(
        phase=phase, slug="open", name="Unconstrained",
        track=tracks.by_slug(phase=phase, slug="open"),
    )  # fmt: skip
    assert b"Unconstrained" in client.get(_url(phase, "open")).content
