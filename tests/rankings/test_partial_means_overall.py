"""Issue 42, item 4, on the overall ranking: a mean over incomplete cells is marked
and ranked after every complete one there too, by the boards' one rule
(``boards/coverage.py``). Replayed on the MT-probe demo through the production path
(scoring job, statistics job, the overall ranking's page and its CSV): one demo team
has its verb class judged only, so its ``correct_low_mean`` averaged over the counted
test sets is 1.0, as high as a team judged in all three classes."""

from __future__ import annotations

import csv
import html
import io

import pytest
from django.urls import reverse

from tests.rankings.statistics_demo import scored_demo

pytestmark = pytest.mark.django_db

MARK = "1 of 3 word classes judged"
RULE = "A mean over fewer word classes than the others"


def test_overall_ranking_marks_a_mean_over_one_class_and_ranks_it_last(
    client, isolated_storage
):
    task = scored_demo("mt_lexicon_probe")
    phase = task.phases.get()
    assert phase.test_sets.filter(counts_for_ranking=True).exists()
    page = client.get(
        reverse("competitions:ranking-detail", args=[task.slug, phase.slug])
    )
    assert page.status_code == 200
    text = html.unescape(page.content.decode())
    assert MARK in text and RULE in text

    answer = client.get(
        reverse("competitions:ranking-plot", args=[task.slug, phase.slug, "csv"])
    )
    assert answer.status_code == 200
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    partial = [r for r in rows if r["coverage"]]
    complete = [r for r in rows if not r["coverage"]]
    assert [(r["team"], r["coverage"]) for r in partial] == [("Demo team C", MARK)]
    (one,) = partial
    # As high as the best complete mean, yet ranked after every complete row.
    assert float(one["mean"]) == max(float(r["mean"]) for r in complete) == 1.0
    assert int(one["rank"]) > max(int(r["rank"]) for r in complete)
    assert rows[-1] == one
