"""Issue 42, item 4: a mean over incomplete cells is marked and ranked by the rule
the board states, never tied silently with complete ones. Replayed on the MT-probe
demo board through the production path (scoring job, statistics job, the board's
page and its JSON): one demo team has its verb class judged only, so its
``correct_low_mean`` is 1.0 over one word class, as high as a team judged in all
three."""

from __future__ import annotations

import html
import json

import pytest
from django.urls import reverse

from evalhub.competitions.services.boards import leaderboard
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import statistics
from tests.rankings.statistics_demo import leaderboard_html, scored_demo

pytestmark = pytest.mark.django_db

MARK = "1 of 3 word classes judged"
RULE = "A mean over fewer word classes than the others"


def test_mt_probe_mean_over_one_class_is_marked_and_ranked_after(
    client, isolated_storage
):
    task = scored_demo("mt_lexicon_probe")
    phase = task.phases.get()
    ts = phase.test_sets.get()
    board = leaderboard.compute(test_set=ts)
    partial = [r for r in board.rows if r.coverage]
    complete = [r for r in board.rows if not r.coverage]
    assert [r.coverage for r in partial] == [MARK]
    (one,) = partial
    assert one.team == "Demo team C"  # its verbs alone judged (docs/rankings.md)
    # As high as the best complete mean, yet not tied with it: ranked after
    # every complete row, and in no band.
    assert one.primary == max(r.primary for r in complete) == 1.0
    assert one.rank > max(r.rank for r in complete)
    assert board.rows[-1] == one and one.band is None
    assert RULE in board.coverage_rule
    # The statistics worker's bands (the significance page's) hold none either.
    matrix = statistics.matrix_of(TestSetStatistics.objects.get(test_set=ts).data, None)
    bands = dict(zip(matrix["runs"], matrix["bands"], strict=True))
    assert bands[one.submission_id] is None
    assert all(bands[r.submission_id] is not None for r in complete if not r.hidden)

    page = html.unescape(leaderboard_html(client, task))
    assert MARK in page and RULE in page
    data = json.loads(
        client.get(
            reverse("competitions:leaderboard-json", args=[task.slug, phase.slug])
        ).content
    )
    (shown,) = data["test_sets"]
    assert RULE in shown["coverage_rule"]
    rows = {r["team"]: r for r in shown["rows"]}
    assert rows[one.team]["coverage"] == MARK
    assert rows[one.team]["rank"] == len(rows)
    assert {r["coverage"] for t, r in rows.items() if t != one.team} == {None}
    api = client.get(f"/api/tasks/{task.slug}/phases/{phase.slug}/leaderboard")
    assert api.status_code == 200
    (board_out,) = api.json()["test_sets"]
    assert RULE in board_out["coverage_rule"]
    assert {r["team"]: r["coverage"] for r in board_out["rows"]}[one.team] == MARK
