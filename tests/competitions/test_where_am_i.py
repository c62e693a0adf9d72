"""Where a participant finds itself (issue 30, item 6), through web requests: its
team's rows marked "you" on the boards (never in the fragment another viewer
gets), its run's rank on each board with a link, a "My runs" page per task with
scores as the visibility rule lets it see them, next-step hints after sign-up and
after registering a team, and the overall ranking linked from every leaderboard."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from evalhub.competitions.models import Submission
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards.own_rows import MARKER
from evalhub.competitions.services.runs import hiding
from tests.rankings.helpers import scored
from tests.rankings.test_visibility_rule import ladder_runs

pytestmark = pytest.mark.django_db

YOU = MARKER.strip()


def _runs(bucc_demo):  # noqa: ANN001, ANN202
    """The demo's best and worst runs' bytes."""
    files = [next(iter(f.values())) for _, _, f in bucc_demo.runs]
    return files[0], files[-1]


@pytest.fixture
def two_teams(phase, test_set, team, other_team, participant, outsider, bucc_demo):  # noqa: ANN001, ANN201
    """Alpha (the participant's team) scored 1st, Mallory's 2nd on the public
    test set."""
    best, worst = _runs(bucc_demo)
    ours = scored(phase, participant, best, "ours")
    theirs = scored(phase, outsider, worst, "theirs")
    return ours, theirs


def _row(html: str, team_name: str) -> str:
    """The board row (``<tr>...</tr>``) whose team cell names ``team_name``."""
    rows = re.findall(r"<tr[^>]*>.*?</tr>", html, flags=re.S)
    (row,) = [r for r in rows if f'class="team">{team_name}' in r]
    return row


def _board(client, phase) -> str:  # noqa: ANN001
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_own_rows_are_marked_for_their_viewer_only(
    client, phase, two_teams, participant, outsider, django_user_model
):  # noqa: ANN001
    client.force_login(participant)
    html = _board(client, phase)
    assert YOU in _row(html, "Alpha")
    assert YOU not in _row(html, "Mallory&#x27;s")
    assert html.count(YOU) == 1

    # The second viewer reads the same cached fragment (same audience): the first
    # viewer's marker is not in it, its own is.
    client.force_login(outsider)
    html = _board(client, phase)
    assert YOU not in _row(html, "Alpha")
    assert YOU in _row(html, "Mallory&#x27;s")
    assert html.count(YOU) == 1

    # A viewer without a team, and the public (whole page cached): no marker, and
    # no trace of the placeholders.
    client.force_login(django_user_model.objects.create_user("bystander"))
    html = _board(client, phase)
    assert YOU not in html and "<!--you:" not in html
    client.logout()
    for _ in range(2):
        html = _board(client, phase)
        assert YOU not in html and "<!--you:" not in html


def test_overall_ranking_marks_own_rows_and_is_linked_from_the_board(
    client, phase, two_teams, participant
):  # noqa: ANN001
    ranking = reverse("competitions:ranking-detail", args=[phase.task.slug, phase.slug])
    assert f'href="{ranking}"' in _board(client, phase)  # anonymous
    client.force_login(participant)
    assert f'href="{ranking}"' in _board(client, phase)
    html = client.get(ranking).content.decode()
    rows = re.findall(r"<tr>.*?</tr>", html, flags=re.S)
    (ours,) = [r for r in rows if "<td>Alpha" in r]
    (theirs,) = [r for r in rows if "<td>Mallory" in r]
    assert YOU in ours and YOU not in theirs


def test_run_page_shows_its_rank_with_a_link_to_the_board(
    client, phase, test_set, private_test_set, two_teams, participant
):  # noqa: ANN001
    ours, theirs = two_teams
    board = reverse(
        "competitions:leaderboard-detail", args=[phase.task.slug, phase.slug]
    )
    html = client.get(reverse("competitions:run-detail", args=[theirs.pk])).content
    html = html.decode()
    assert "<strong>Rank 2</strong> of 2" in html
    assert f'href="{board}#testset-{test_set.pk}"' in html
    # The private test set is not revealed: neither its score nor a rank on it.
    assert f"#testset-{private_test_set.pk}" not in html
    assert html.count("Rank ") == 1

    # A run the board does not list (not its team's best) says so, with the link.
    worse = scored(phase, participant, _runs_bytes(phase), "worse")
    html = client.get(reverse("competitions:run-detail", args=[worse.pk])).content
    assert b"Not on the <a href=" in html
    private_test_set.revealed = True
    private_test_set.save()
    html = client.get(reverse("competitions:run-detail", args=[ours.pk])).content
    assert f'#testset-{private_test_set.pk}"'.encode() in html
    assert html.count(b"<strong>Rank 1</strong> of 2") == 2


def _runs_bytes(phase) -> bytes:  # noqa: ANN001
    from tasks import registry

    demo = registry.get("bilingual_term_alignment").demo(seed=0)
    return next(iter(demo.runs[-1][2].values()))


def test_my_runs_page_shows_scores_as_the_visibility_rule_allows(
    client, phase, test_set, private_test_set, two_teams, participant, outsider
):  # noqa: ANN001
    ours, theirs = two_teams
    url = reverse("competitions:own-run-list", args=[phase.task.slug])
    assert client.get(url).status_code == 302  # to the login page
    hidden = scored(phase, participant, _runs_bytes(phase), "kept to ourselves")
    hiding.set_hidden(submission=hidden, user=participant, hidden=True)

    client.force_login(participant)
    html = client.get(url).content.decode()
    assert f"#{ours.pk}</a>" in html and f"#{hidden.pk}</a>" in html
    assert f"#{theirs.pk}</a>" not in html  # another team's run
    ap = test_set.phase.task.type.metric("ap")
    (our_ap,) = ours.scores.filter(test_set=test_set, metric="ap")
    assert ap.format(our_ap.value) in html
    # The private test set is not revealed: no score of it, the own team's too.
    (private_ap,) = ours.scores.filter(test_set=private_test_set, metric="ap")
    assert ap.format(private_ap.value) not in html.replace(ap.format(our_ap.value), "")
    assert html.count("private until revealed") == 2
    # Hidden runs are the team's own: their score shows, marked hidden, unranked.
    assert '<span class="badge">hidden</span>' in html
    assert "rank 1 of 2" in html and "not on the board" in html
    assert "Scored" in html

    # The other team sees its own run only.
    client.force_login(outsider)
    html = client.get(url).content.decode()
    assert f"#{theirs.pk}</a>" in html and f"#{ours.pk}</a>" not in html


def test_my_runs_is_linked_from_the_task_page_and_the_header(
    client, task, phase, team, participant
):  # noqa: ANN001
    url = reverse("competitions:own-run-list", args=[task.slug])
    assert url not in client.get(task.get_absolute_url()).content.decode()
    client.force_login(participant)
    html = client.get(task.get_absolute_url()).content.decode()
    header = html.split("</header>", 1)[0]
    assert f'href="{url}"' in header
    assert html.count(f'href="{url}"') >= 2  # and the participation section


def test_next_step_after_sign_up_and_after_registering_a_team(client, task, phase):  # noqa: ANN001
    response = client.post(
        reverse("account_signup"),
        {
            "username": "newcomer",
            "email": "newcomer@example.org",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
        },
        follow=True,
    )
    assert response.status_code == 200
    assert "Next: open a task&#x27;s page and register a team" in (
        response.content.decode()
    )
    response = client.post(
        reverse("competitions:task-register", args=[task.slug]),
        {"new_team": "Newcomers"},
        follow=True,
    )
    html = response.content.decode()
    assert "Team Newcomers is registered" in html or "awaits" in html
    assert "Next: download the data" in html


def test_fact_sheet_state_on_my_runs(client, phase, two_teams, participant):  # noqa: ANN001
    from evalhub.factsheets.models import Question

    Question.objects.create(
        task=phase.task, key="external", label="External data?", kind="yes_no",
        required=True, order=0,
    )  # fmt: skip
    client.force_login(participant)
    html = client.get(
        reverse("competitions:own-run-list", args=[phase.task.slug])
    ).content.decode()
    ours, _ = two_teams
    sheet = reverse("factsheets:run-sheet", args=[ours.pk])
    assert f'<a href="{sheet}">1 required answer missing</a>' in html


def test_register_hint_names_my_runs_once_approved(client, task, phase, participant):  # noqa: ANN001
    teams.register(task=task, user=participant, new_team_name="Alpha")
    client.force_login(participant)
    html = client.get(task.get_absolute_url()).content.decode()
    assert "My runs</a>: every run of your team here" in html


@pytest.fixture
def ladder(task, phase, test_set, bucc_demo, participant, outsider):  # noqa: ANN001, ANN201
    """The visibility rule's Ladder (``ladder_runs``): team A's first run
    released, its second withheld; team B's run released."""
    runs = ladder_runs(task, phase, test_set, bucc_demo, participant, outsider)
    return {name: Submission.objects.get(pk=pk) for name, pk in runs.items()}


def test_my_runs_never_shows_a_score_the_ladder_withholds_from_its_own_team(
    client,
    ladder,
    phase,
    participant,
):  # noqa: ANN001
    """The Ladder withholds a team's unreleased run from everyone but organisers
    (the rule: ``visibility.visible``), the team included."""
    first, withheld = ladder["first"], ladder["withheld"]
    client.force_login(participant)
    html = client.get(
        reverse("competitions:own-run-list", args=[phase.task.slug])
    ).content.decode()
    rows = {
        pk: row
        for row in re.findall(r"<tr><td.*?</tr>", html, flags=re.S)
        for pk in (first.pk, withheld.pk)
        if f">#{pk}</a>" in row
    }
    score = re.compile(r">\d\.\d{4}")
    assert score.search(rows[first.pk]) and "rank 1 of 2" in rows[first.pk]
    assert "withheld" in rows[withheld.pk] and not score.search(rows[withheld.pk])
    assert "rank" not in rows[withheld.pk].replace("not on the board", "")
