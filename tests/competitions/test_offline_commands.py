"""The ``evalhub score`` commands of the task page for the task types whose test
sets hold several documents or whose scores need annotators: with the gold
released, each test set's printed command, run on the files as the task page
downloads them and a run file as the team submitted it, prints exactly the
platform's stored scores (sentence alignment: a test set of several documents,
one run file for every test set of the phase); the MT probe's page shows no
command and says why."""

from __future__ import annotations

import html
import io
import json
import re
import shlex
from collections import defaultdict
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from evalhub.competitions.models import Score, SharedTask, Submission, TestSet
from evalhub.competitions.services.data import datasets
from tasks import cli
from tests.competitions.archive_helpers import finished_campaign
from tests.competitions.test_after_campaign import _close

pytestmark = pytest.mark.django_db


def _commands(page: str) -> dict[str, list[str]]:
    """Test set name -> the command printed for it."""
    found = re.findall(r'<p>([^<]+?): <code class="command">(.*?)</code></p>', page)
    return {html.unescape(name): shlex.split(html.unescape(c)) for name, c in found}


def _download(client, page: str, folder: Path) -> dict[int, Path]:  # noqa: ANN001
    """Every file the task page links, each test set's in a folder of its own."""
    where: dict[int, Path] = defaultdict(Path)
    for href, pk_text in re.findall(r'href="(/testsets/(\d+)/files/[^"]+)"', page):
        pk = int(pk_text)
        response = client.get(href)
        assert response.status_code == 200, href
        name = re.search(r'filename="([^"]+)"', response["Content-Disposition"])[1]
        where[pk] = folder / str(pk)
        where[pk].mkdir(exist_ok=True)
        (where[pk] / name).write_bytes(b"".join(response.streaming_content))
    return where


def _offline_value(report: dict, metric: str) -> object:
    """A stored metric in the command's JSON: top level, or ``<level>_<stat>``
    as ``report[level][stat]``."""
    if metric in report:
        return report[metric]
    level, _, stat = metric.rpartition("_")
    return report[level][stat]


def test_each_sentence_alignment_test_set_has_its_exact_command(
    isolated_storage,
    client,
    tmp_path,
    monkeypatch,  # noqa: ANN001
):
    task = _close(finished_campaign("sentence_alignment"))
    datasets.release_gold(task=task, confirm_unrevealed=True)  # the private too
    page = client.get(task.get_absolute_url()).content.decode()
    commands = _commands(page)
    test_sets = list(TestSet.objects.filter(phase__task=task))
    assert sorted(commands) == sorted(ts.name for ts in test_sets)
    assert len(test_sets) == 2  # one run file covers both
    folders = _download(client, page, tmp_path)
    runs = Submission.objects.filter(phase__task=task, status=Submission.Status.SCORED)
    checked = 0
    for test_set in test_sets:
        args = commands[test_set.name]
        assert args[:3] == ["evalhub", "score", "sentence_alignment"]
        assert "--documents" in args  # every document of the test set at once
        monkeypatch.chdir(folders[test_set.pk])
        for run in runs:
            with run.file.open("rb") as handle:
                Path("RUN").write_bytes(handle.read())
            out = io.StringIO()
            with redirect_stdout(out):
                assert cli.main(args[1:]) == 0
            offline = json.loads(out.getvalue())
            official = dict(
                Score.objects.filter(submission=run, test_set=test_set).values_list(
                    "metric", "value"
                )
            )
            assert len(official) == len(task.type.metrics)
            assert {k: _offline_value(offline, k) for k in official} == official
            checked += 1
    assert checked == 2 * runs.count() >= 6


def test_the_mt_probe_page_says_why_it_shows_no_command(
    isolated_storage,
    client,  # noqa: ANN001
):
    task: SharedTask = _close(finished_campaign("mt_lexicon_probe"))
    page = client.get(task.get_absolute_url()).content.decode()
    assert task.type.no_score_command not in html.unescape(page)
    datasets.release_gold(task=task, confirm_unrevealed=True)
    page = html.unescape(client.get(task.get_absolute_url()).content.decode())
    assert "evalhub score" not in page
    assert "annotators' judgements" in page and task.type.no_score_command in page
