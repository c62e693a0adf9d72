"""The console's *Runs* page shows every score of a run, not only the primary one
(issue 43 item 10): every metric on demand (a ``<details>`` per test set) and in
the page's CSV export, through web requests; nobody but the organisers gets the
CSV."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse

from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(phase, test_set, participant, team, bucc_demo):  # noqa: ANN001, ANN201
    data = next(iter(bucc_demo.runs[0][2].values()))
    return scored(phase, participant, data, "m", figures=False)  # scores only


def _expected(run, task) -> dict[str, str]:  # noqa: ANN001
    """Every metric's label and formatted score the run has (one test set)."""
    kind = task.type
    shown = {
        kind.metric(s.metric).label: kind.metric(s.metric).format(s.value)
        for s in run.scores.all()
        if s.metric in {m.key for m in kind.metrics}
    }
    assert len(shown) > 1  # more than the primary metric to show
    return shown


def test_every_score_of_a_run_on_the_page(client, organiser, task, run):  # noqa: ANN001
    client.force_login(organiser)
    page = client.get(reverse("console:runs", args=[task.slug])).content.decode()
    (details,) = re.findall(
        r'<details class="all-scores">(.*?)</details>', page, flags=re.S
    )
    pairs = dict(re.findall(r'<dt>([^<]+)</dt><dd class="num">([^<]+)</dd>', details))
    assert pairs == _expected(run, task)


def test_every_score_of_a_run_in_the_csv(
    client, organiser, participant, task, run, test_set
):  # noqa: ANN001
    url = reverse("console:runs-csv", args=[task.slug])
    client.force_login(participant)
    assert client.get(url).status_code == 404
    client.force_login(organiser)
    response = client.get(url, {"q": run.method_name})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["run"], r["test set"]) for r in rows] == [(str(run.pk), test_set.name)]
    expected = _expected(run, task)
    assert {k: rows[0][k] for k in expected} == expected
    # The page links the export with its filters.
    page = client.get(reverse("console:runs", args=[task.slug]), {"q": "m"})
    assert f'href="{url}?q=m"' in page.content.decode()
