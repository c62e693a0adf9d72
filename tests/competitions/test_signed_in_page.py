"""The leaderboard page for signed-in viewers (issue 47, ``viewer_page``): one shell
per audience, rendered once per change and shared by its viewers, with each
viewer's own parts put in per request: their name and links in the header, their
CSRF token, their teams' "you" rows. Through web requests: two viewers of one
audience get their own parts from one shell; organisers and participants never
share one; the page follows the boards, the task and the viewer's header; a page
with a message for its viewer is theirs alone."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from evalhub.competitions.services.boards import boardcache, viewer_page
from evalhub.competitions.services.boards.own_rows import MARKER
from evalhub.competitions.services.runs import hiding
from evalhub.notifications.services import notify
from tests.competitions.board_cache import page_url
from tests.competitions.runs import stored_run

pytestmark = pytest.mark.django_db

YOU = MARKER.strip()
PRIVATE_AP = 0.8642  # a value only the private test set's board shows
HIDDEN_METHOD = "kept-to-ourselves"


@pytest.fixture
def shells(monkeypatch):  # noqa: ANN001, ANN201
    """How many times a page shell was rendered."""
    count = [0]
    real = viewer_page.render_to_string

    def counting(template_name, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if template_name == viewer_page.SHELL_TEMPLATE:
            count[0] += 1
        return real(template_name, *args, **kwargs)

    monkeypatch.setattr(viewer_page, "render_to_string", counting)
    return count


@pytest.fixture
def board(phase, test_set, private_test_set, team, participant, other_team, outsider):  # noqa: ANN001, ANN201
    """Alpha (alice's team) and Mallory's each with a scored run; Alpha also with
    a run its team hid, and a score on the private test set."""
    stored_run(
        phase, team, participant, {test_set: 0.5, private_test_set: PRIVATE_AP},
        minutes_ago=10, method="alpha-method",
    )  # fmt: skip
    stored_run(
        phase, other_team, outsider, {test_set: 0.4}, minutes_ago=9, method="m-method"
    )
    hidden = stored_run(
        phase, team, participant, {test_set: 0.9}, minutes_ago=8, method=HIDDEN_METHOD
    )
    hiding.set_hidden(submission=hidden, user=participant, hidden=True)
    for ts in (test_set, private_test_set):
        boardcache.invalidate(test_set_id=ts.pk, refresh_statistics=False)
    return phase


def _signed_in(user) -> Client:  # noqa: ANN001
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def _row(html: str, team_name: str) -> str:
    rows = re.findall(r"<tr[^>]*>.*?</tr>", html, flags=re.S)
    (row,) = [r for r in rows if f'class="team">{team_name}' in r]
    return row


def _tokens(html: str) -> set[str]:
    """The CSRF tokens on the page: htmx's header and the log-out form's."""
    header = re.findall(r'"X-CSRFToken": "([^"]+)"', html)
    form = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert len(header) == 1 and len(form) == 1, (header, form)
    return {*header, *form}


def test_two_viewers_of_one_audience_share_a_shell_with_their_own_parts(
    board, participant, outsider, shells
):
    alice, mallory = _signed_in(participant), _signed_in(outsider)
    pages = {}
    for name, client in (("alice", alice), ("mallory", mallory), ("alice", alice)):
        page = client.get(page_url(board))
        assert page.status_code == 200
        pages[name] = page.content.decode()
    assert shells[0] == 1  # the second and third pages came from the shell

    a, m = pages["alice"], pages["mallory"]
    assert "Signed in as <strong>alice</strong>" in a and "mallory" not in a
    assert "Signed in as <strong>mallory</strong>" in m and "alice" not in m
    assert YOU in _row(a, "Alpha") and a.count(YOU) == 1
    assert YOU in _row(m, "Mallory&#x27;s") and m.count(YOU) == 1
    for html in (a, m):
        assert "<!--viewer:" not in html and "<!--you:" not in html
        # Neither the team's hidden run nor a private score: not their audience's.
        assert HIDDEN_METHOD not in html and f"{PRIVATE_AP:.4f}" not in html
        assert "you see them, marked" not in html

    # Each page's CSRF tokens are its viewer's: they pass for the viewer who got
    # them, and not for the other.
    for token in _tokens(m):
        assert (
            alice.post("/accounts/logout/", HTTP_X_CSRFTOKEN=token).status_code == 403
        )
    for token in _tokens(a):
        refused = mallory.post("/accounts/logout/", {"csrfmiddlewaretoken": token})
        assert refused.status_code == 403
    (token, *_) = _tokens(a)
    assert alice.post("/accounts/logout/", HTTP_X_CSRFTOKEN=token).status_code == 302
    assert "Signed in as" not in alice.get(page_url(board)).content.decode()


def test_organisers_and_participants_never_share_a_shell(
    board, participant, organiser, shells
):
    private = f"{PRIVATE_AP:.4f}"
    alice, org = _signed_in(participant), _signed_in(organiser)
    before = alice.get(page_url(board)).content.decode()
    seen = org.get(page_url(board)).content.decode()
    after = alice.get(page_url(board)).content.decode()
    again = org.get(page_url(board)).content.decode()
    assert shells[0] == 2  # one per audience

    for html in (seen, again):
        assert private in html and HIDDEN_METHOD in html
        assert "you see them, marked" in html
        assert "Choose the pages allowed to show the embeds" in html
        assert "Signed in as <strong>org</strong>" in html and YOU not in html
    for html in (before, after):
        assert private not in html and HIDDEN_METHOD not in html
        assert "you see them, marked" not in html
        assert "Choose the pages allowed to show the embeds" not in html
        assert "Signed in as <strong>alice</strong>" in html and "org<" not in html
        assert YOU in _row(html, "Alpha")


def test_the_page_follows_the_boards_and_the_task(
    board, phase, test_set, task, participant, other_team, outsider, shells
):
    alice = _signed_in(participant)
    assert "late-method" not in alice.get(page_url(board)).content.decode()
    stored_run(
        phase,
        other_team,
        outsider,
        {test_set: 0.7},
        minutes_ago=1,
        method="late-method",
    )
    boardcache.invalidate(test_set_id=test_set.pk, refresh_statistics=False)
    html = alice.get(page_url(board)).content.decode()
    assert "late-method" in html and YOU in _row(html, "Alpha")
    assert shells[0] == 2

    task.title = "Renamed task"
    task.save()
    phase.name = "Final round"
    phase.save()
    html = alice.get(page_url(board)).content.decode()
    assert "Renamed task" in html and "Final round" in html
    # The header's "My runs" link names the task as it is now.
    assert 'My runs<span class="visually-hidden"> in Renamed task' in html
    task.state = "draft"
    task.save()
    assert alice.get(page_url(board)).status_code == 404  # drafts: organisers only


def test_the_header_follows_its_viewer(board, participant, outsider, shells):
    alice, mallory = _signed_in(participant), _signed_in(outsider)
    assert "data-unread" not in alice.get(page_url(board)).content.decode()
    notify.notify(
        recipients=[participant], key="k", text="Your run was scored", link="/"
    )
    html = alice.get(page_url(board)).content.decode()
    assert 'data-unread="1"' in html
    assert "data-unread" not in mallory.get(page_url(board)).content.decode()
    assert shells[0] == 1


def test_a_message_for_its_viewer_is_on_a_page_of_their_own(
    board, participant, outsider, shells
):
    alice, mallory = Client(), _signed_in(outsider)
    alice.force_login(participant)
    created = alice.post(reverse("teams:team-create"), {"name": "Beta"})
    assert created.status_code == 302
    html = alice.get(page_url(board)).content.decode()
    assert "Team Beta created." in html  # shown where alice goes next
    assert shells[0] == 0  # that page rendered whole, not kept as a shell
    for html in (
        alice.get(page_url(board)).content.decode(),
        mallory.get(page_url(board)).content.decode(),
    ):
        assert "Team Beta created." not in html and 'class="messages"' not in html
    assert shells[0] == 1
