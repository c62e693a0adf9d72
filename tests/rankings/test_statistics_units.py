"""Statistics a reader can trust, replayed on the demo boards through the production
path (scoring job, statistics job, web pages): each task type's resampling unit and
n are stated; a board whose units cannot reach alpha draws no bands and says why
(the sentence-alignment demo: 2 documents, whose intervals are far apart while the
exact randomisation test's smallest p is 0.5); no two runs share a band while the
band rule's test rejects; a degenerate interval is said, never "± 0.000"."""

from __future__ import annotations

import html
import json

import pytest
from django.urls import reverse

from evalhub.competitions.services.boards import leaderboard
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import statistics
from tasks.common.resampling import bands
from tests.rankings.statistics_demo import (
    holm_adjusted,
    leaderboard_html,
    scored_demo,
    significance_html,
)

pytestmark = pytest.mark.django_db

UNITS = {
    "bilingual_term_alignment": "gold-pair",
    "term_extraction": "gold-term",
    "sentence_alignment": "document",
    "mt_lexicon_probe": "probe-word",
}


def test_sentence_alignment_two_documents_draw_no_bands(client, isolated_storage):
    task = scored_demo("sentence_alignment")
    ts = task.phases.get().test_sets.get(slug="reports")
    board = leaderboard.compute(test_set=ts)
    # Observation 1: intervals far apart, yet no test over 2 documents can reject.
    assert [r.primary for r in board.rows][0] - board.rows[-1].primary > 0.3
    assert all(r.band is None for r in board.rows)
    sentence = "2 documents: no difference can be significant at α = 0.05"
    assert sentence in board.legend
    assert "|unit:document|n:2" in board.signature
    page = html.unescape(leaderboard_html(client, task))
    assert sentence in page
    assert 'class="band phone-extra"' not in page  # no band column
    detail = html.unescape(significance_html(client, ts))
    assert f"For every pair: {sentence}." in detail
    assert "over 2 documents" in detail
    data = json.loads(
        client.get(
            reverse("rankings:significance-export", args=[ts.pk, "json"])
        ).content
    )
    assert data["unit"] == "document" and data["n"] == 2
    assert data["power"] == sentence
    assert all(r["band"] is None for r in data["runs"])


def test_one_document_has_no_interval_and_says_so(client, isolated_storage):
    task = scored_demo("sentence_alignment")
    ts = task.phases.get().test_sets.get(slug="novel")
    board = leaderboard.compute(test_set=ts)
    assert all(r.interval.endswith("(n = 1: no interval)") for r in board.rows)
    assert "1 document: no difference can be significant" in board.legend
    client.force_login(task.organisers.get())  # the test set is private
    page = html.unescape(leaderboard_html(client, task))
    assert "(n = 1: no interval)" in page
    assert "± 0.000" not in page


def test_mt_probe_all_resamples_equal_is_not_shown_as_certainty(
    client, isolated_storage
):
    task = scored_demo("mt_lexicon_probe")
    ts = task.phases.get().test_sets.get()
    board = leaderboard.compute(test_set=ts)
    perfect = [r for r in board.rows if r.primary == 1.0]
    assert perfect  # observation 3: two teams at 1.0000 on every resample
    for row in perfect:
        assert row.interval == "1.0000 (n = 9: every resample equal, no interval)"
    page = html.unescape(leaderboard_html(client, task))
    assert "1.0000 ± 0.000" not in page
    assert "n = 9: every resample equal, no interval" in page
    assert "over 9 probe words" in page
    detail = html.unescape(significance_html(client, ts))
    assert "± 0.000" not in detail


@pytest.mark.parametrize("slug", sorted(UNITS))
def test_every_board_states_its_unit_and_bands_agree_with_their_tests(
    slug, client, isolated_storage
):
    task = scored_demo(slug)
    for ts in task.phases.get().test_sets.all():
        row = TestSetStatistics.objects.get(test_set=ts)
        n = row.data["n_items"]
        assert f"|unit:{UNITS[slug]}|n:{n}" in row.signature
        board = leaderboard.compute(test_set=ts)
        unit = task.type.unit
        assert unit.count(n) in board.legend
        matrix = statistics.with_pairs(
            test_set=ts, matrix=statistics.matrix_of(row.data, None)
        )
        if not bands.can_reach(n, row.data["samples"], row.data["alpha"]):
            assert all(b is None for b in matrix["bands"])
            continue
        # The one rule, checked with Holm's adjusted p-values: every run shares
        # its band's best run's band only if their test does not reject, and a
        # band ends at a rejected run.
        values, p = matrix["values"], matrix["p_randomisation"]
        # Runs that take no band (a mean over fewer cells: boards/coverage.py).
        held = [i for i in range(len(values)) if matrix["bands"][i] is not None]
        order = sorted(held, key=lambda i: -values[i])
        start = 0
        while start < len(order):
            leader, rest = order[start], order[start + 1 :]
            adjusted = holm_adjusted([p[leader][j] for j in rest])
            same = [j for j in rest if matrix["bands"][j] == matrix["bands"][leader]]
            for j in same:
                assert adjusted[rest.index(j)] >= row.data["alpha"]
            if len(same) < len(rest):
                assert adjusted[len(same)] < row.data["alpha"]
            start += 1 + len(same)
        shown = [r.band for r in board.rows if r.band is not None]
        assert shown == sorted(shown)
