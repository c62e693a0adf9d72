"""The compare page as a visitor reads it (Django's client): "best" marks quality
metrics only, by their direction; "values differ" is said once per table; the table
may use the page's width."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from evalhub.competitions.models import Score
from tests.competitions.runs import stored_run

pytestmark = pytest.mark.django_db


def _with_scores(run, test_set, **values):  # noqa: ANN001, ANN003, ANN202
    for metric, value in values.items():
        Score.objects.create(
            submission=run,
            test_set=test_set,
            metric=metric,
            value=value,
            scorer_version="1",
        )
    return run


@pytest.fixture
def compare_html(phase, test_set, team, participant, other_team, outsider, task) -> str:  # noqa: ANN001
    first = stored_run(
        phase, team, participant, {test_set: 0.4321}, minutes_ago=20, method="one"
    )
    second = stored_run(
        phase, other_team, outsider, {test_set: 0.5555}, minutes_ago=5, method="two"
    )
    # More ranked pairs and more false positives: neither is "best".
    _with_scores(first, test_set, n_sys=602, fp=453, fn=40)
    _with_scores(second, test_set, n_sys=300, fp=200, fn=70)
    url = reverse("competitions:runs-compare", args=[task.slug, phase.slug])
    response = Client().get(f"{url}?runs={first.pk}&runs={second.pk}")
    assert response.status_code == 200
    return response.content.decode()


def _cells(page: str) -> list[str]:
    return re.findall(r"<td class=\"num[^\"]*\">.*?</td>", page)


def test_counts_are_never_starred_but_quality_metrics_are(compare_html):
    best = [c for c in _cells(compare_html) if "best" in c]
    assert best == [
        '<td class="num best"><strong>0.5555</strong>'
        ' <span aria-hidden="true">★</span>'
        '<span class="visually-hidden">(best)</span></td>'
    ]
    for count in ("602", "453", "300", "200", "40", "70"):
        cell = next(
            c for c in _cells(compare_html) if f">{count}<" in c or f">{count} " in c
        )
        assert "best" not in cell and "★" not in cell, cell
        assert "delta" not in cell, cell  # no difference to a "best" that is none


def test_values_differ_is_said_once_per_table(compare_html):
    assert compare_html.count("values differ in") == 1
    assert "(values differ)" not in compare_html
    assert "the values differ in AP, nSys, FP, FN" in compare_html


def test_the_table_may_use_the_window_width(compare_html):
    assert '<main id="main" class="wide">' in compare_html
    assert (
        '<small class="delta">' in compare_html
    )  # the difference goes under the value
